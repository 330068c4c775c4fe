/**
 * The live replay (shared/replay/live.ts run by electron/engine/replay.ts) on the real
 * spotter 258c7280 session (306 turns, 152 model calls with Claude Code's recorded usage,
 * one automatic compaction by Claude Code at turn 207), and the projected timeline on a
 * generated long session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { runReplay } from '../../electron/engine/replay.js';
import { loadReplaySource } from '../../electron/engine/engine.js';
import { replayContextAt } from '../../electron/services/replays.js';
import { listReplaySummaries, listSummaries } from '../../electron/store/variants.js';
import { writeSetting } from '../../electron/store/settings.js';
import { listTurnMetas } from '../../electron/store/turns.js';
import { FIXTURES, turnsDump } from '../helpers/fixture-sessions.js';
import { projectTimeline } from '../../shared/replay/projection.js';
import { prepareStrategy } from '../../shared/strategies/index.js';
import { validateMessages } from '../../shared/replay/index.js';
import { replayInputs } from '../../shared/replay/timeline.js';
import { syntheticSessionMetas } from '../../bench/plan.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
let dir: string;
let db: DB;
let sessionId: number;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-replay-'));
  db = openDatabase(path.join(dir, 'studio.sqlite'));
  sessionId = importFiles(db, [SPOTTER]).sessions[0].id;
});
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('live replay on the real spotter session', () => {
  it('walks all 152 model calls, fires dag where the context with overhead crosses 0.75 × 200,000, and never touches turns', async () => {
    const before = turnsDump(db);
    const r = await runReplay(db, { sessionId, strategy: 'dag' });
    expect(r.status).toBe('completed');
    const t = r.timeline!;
    expect(t.totals.modelCalls).toBe(152);
    expect(t.contextModel.source).toBe('fit');
    expect(t.events.length).toBeGreaterThanOrEqual(1);
    for (const e of t.events) {
      // The trigger: the context the model would receive (view + fitted overhead) passed the threshold.
      expect(e.contextBefore).toBeGreaterThan(150_000);
      expect(e.contextAfter).toBeLessThan(e.contextBefore);
    }
    // Every call after a firing sends less than the uncompacted transcript would.
    const first = t.events[0].call;
    for (let k = first; k < t.calls.context.length; k++) expect(t.calls.context[k]).toBeLessThan(t.baselines.none.context[k]);
    expect(t.totals.peakContext).toBeLessThanOrEqual(t.baselines.none.totals.peakContext);
    // The replay's summaries are its own: the variant's own summary list stays empty.
    expect(listSummaries(db, r.variantId)).toHaveLength(0);
    expect(turnsDump(db)).toBe(before);
  });

  it("sends what Claude Code reported until the variant first changes the view; the model only estimates contexts never sent", async () => {
    const t = (await runReplay(db, { sessionId, strategy: 'dag' })).timeline!;
    const first = t.events[0].call;
    // 102 calls before Claude Code's own compaction at turn 207 (a trusted reported figure each).
    const beforeSource = t.calls.position.filter((p) => p < 207).length;
    expect(beforeSource).toBe(102);
    for (let k = 0; k < Math.min(first, beforeSource); k++) expect(t.calls.context[k]).toBe(t.baselines.source.context[k]);
    for (let k = 0; k < beforeSource; k++) expect(t.baselines.none.context[k]).toBe(t.baselines.source.context[k]);
    // The firing saw the reported context of its call: it is what crossed the threshold.
    expect(t.events[0].contextBefore).toBe(t.baselines.source.context[first]);
    // From the firing on, the variant sends what Claude Code never sent: the model's estimate, far smaller here.
    expect(t.calls.context[first]).toBeLessThan(t.baselines.source.context[first]! / 2);
  });

  it("prices with the user's prices (settings) where they override the table: replay, baselines and the source's record", async () => {
    const before = (await runReplay(db, { sessionId, strategy: 'dag' })).timeline!;
    expect(before.pricing).toMatchObject({ model: 'claude-opus-4-6', known: true, ttl: '1h' });
    expect(before.totals.costUsd).toBeGreaterThan(1);
    writeSetting(db, 'prices', { 'claude-opus-4-6': { input: 0, output: 0, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0 } });
    try {
      const free = (await runReplay(db, { sessionId, strategy: 'dag' })).timeline!;
      expect([free.totals.costUsd, free.baselines.none.totals.costUsd]).toEqual([0, 0]);
      // The source's record: its Opus calls (main and compaction) are free now; its subagent ran on Sonnet and still costs.
      expect(free.baselines.source.lines!.map((l) => [l.kind, l.costUsd > 0])).toEqual([['main', false], ['compaction', false], ['subagent', true]]);
      expect(free.baselines.source.totals.costUsd).toBeCloseTo(free.baselines.source.lines![2].costUsd, 6);
      // Same calls, same cache split: only the prices changed.
      expect(free.calls.cacheRead).toEqual(before.calls.cacheRead);
    } finally {
      writeSetting(db, 'prices', {});
    }
  });

  it('a second replay of the same variant makes 0 summarizer calls (summary cache) and gives the same timeline', async () => {
    const a = await runReplay(db, { sessionId, strategy: 'dag', params: { freshTailCount: 8 } });
    const b = await runReplay(db, { sessionId, strategy: 'dag', params: { freshTailCount: 8 } });
    expect(a.timeline!.events.reduce((n, e) => n + e.summarizerCalls, 0)).toBeGreaterThan(0);
    expect(b.timeline!.events.reduce((n, e) => n + e.summarizerCalls, 0)).toBe(0);
    expect(b.timeline!.calls.context).toEqual(a.timeline!.calls.context);
  });

  it('watermark fires more than once (every ~30k pending tokens), and its summaries accumulate (design version 1)', async () => {
    const r = await runReplay(db, { sessionId, strategy: 'watermark' });
    const t = r.timeline!;
    expect(t.events.length).toBeGreaterThan(1);
    const ids = t.events.flatMap((e) => e.summaryIds);
    expect(ids).toHaveLength(t.events.length);
    expect(new Set(ids).size).toBe(ids.length);
    // Never re-summarized: every summary stays visible at depth 0, their spans follow one another.
    const stored = listReplaySummaries(db, r.runId).sort((a, b) => a.firstPosition - b.firstPosition);
    expect(stored.map((s) => [s.depth, s.compacted])).toEqual(stored.map(() => [0, false]));
    for (let i = 1; i < stored.length; i++) expect(stored[i].firstPosition).toBeGreaterThan(stored[i - 1].lastPosition);
    // Each stands for exactly the conversation turns of its span (the ids the pass listed when the
    // replay's store read them, after the loop had grown the prefix on: convSpan's lazy ids).
    const metas = listTurnMetas(db, sessionId);
    for (const x of stored) expect(x.turnIds).toEqual(metas.slice(x.firstPosition, x.lastPosition + 1).filter((m) => m.role !== 'system').map((m) => m.id));
    // What the model saw at the last firing: every summary made so far, in order.
    const last = replayContextAt(db, r.runId, t.events[t.events.length - 1].call);
    const shown = last.messages.flatMap((m) => m.parts ?? [m.origin]).flatMap((o) => (o.kind === 'summary' ? [o.summaryId] : []));
    expect(shown).toEqual(stored.map((s) => s.id));
  });

  it("two-line's warning pass is summarized at the firing and lands later ('commit' events), never reaching the emergency line", async () => {
    const t = (await runReplay(db, { sessionId, strategy: 'two-line', commitDelayCalls: 2 })).timeline!;
    const commits = t.events.filter((e) => e.kind === 'commit');
    expect(commits.length).toBeGreaterThan(0);
    for (const e of commits) expect(e.reason).toMatch(/warning, background pass/);
    expect(t.totals.peakContext).toBeLessThan(0.8 * 200_000);
  });

  it('two-line keeps ONE live summary row at every call: each pass supersedes the previous row (new row, old marked compacted), continuing it', async () => {
    // Low lines so it fires several times on the 152 calls (with digests at the emergency line).
    const r = await runReplay(db, { sessionId, strategy: 'two-line', params: { warningPct: 20, emergencyPct: 30 }, commitDelayCalls: 1 });
    const rows = listReplaySummaries(db, r.runId);
    const passes = r.timeline!.events.filter((e) => e.summaryIds.length > 0 || e.kind === 'commit').length;
    expect(passes).toBeGreaterThan(2);
    expect(rows.filter((s) => s.kind === 'chunk').length).toBeGreaterThan(1);
    const calls = Math.max(...rows.map((s) => s.callIndex)) + 2;
    for (let k = 0; k < calls; k++) {
      const live = rows.filter((s) => s.callIndex <= k && (s.compactedAtCall === null || s.compactedAtCall > k));
      expect(live.length, `live two-line rows before call ${k}`).toBeLessThanOrEqual(1);
    }
    // Every row after the first starts where the history starts: it stands for all of it.
    const first = Math.min(...rows.map((s) => s.firstPosition));
    for (const s of rows) expect(s.firstPosition).toBe(first);
    // A chunk row lists the new turns it summarized (its ids read lazily, after the loop): conversation
    // turns, in order, ending with the row's last turn.
    const metas = listTurnMetas(db, sessionId);
    const byId = new Map(metas.map((m) => [m.id, m]));
    for (const s of rows.filter((x) => x.kind === 'chunk')) {
      const at = s.turnIds.map((id) => byId.get(id)!);
      expect(at.length).toBeGreaterThan(0);
      expect(at.every((m) => m.role !== 'system' && m.position >= s.firstPosition && m.position <= s.lastPosition)).toBe(true);
      expect(at.map((m) => m.position)).toEqual([...at.map((m) => m.position)].sort((a, b) => a - b));
      expect(at[at.length - 1].position).toBe(s.lastPosition);
      const from = at[0].position;
      expect(at.map((m) => m.id)).toEqual(metas.slice(from, s.lastPosition + 1).filter((m) => m.role !== 'system').map((m) => m.id));
    }
  });

  it("abandons two-line's background commit when an emergency digest moved the history before it landed", async () => {
    // Lines low enough that the context (with Claude Code's ~25k overhead) crosses the
    // emergency line while a background pass is still pending (it lands 3 calls later).
    const t = (await runReplay(db, { sessionId, strategy: 'two-line', params: { warningPct: 20, emergencyPct: 30 }, commitDelayCalls: 3 })).timeline!;
    const abandoned = t.events.filter((e) => e.kind === 'commit' && /abandoned/.test(e.reason));
    expect(abandoned.length).toBeGreaterThan(0);
    for (const e of abandoned) {
      expect(e.spans).toBe(0);
      expect(e.contextAfter).toBe(e.contextBefore);
      // An emergency digest was written between the firing that started the pass and this commit.
      const digestsBetween = t.events.filter((x) => x.kind === 'fire' && x.call > e.call - 3 && x.call <= e.call && /emergency/.test(x.reason));
      expect(digestsBetween.length).toBeGreaterThan(0);
    }
  });

  it('shows what the model saw at a firing call: valid for OpenAI and Anthropic, summaries of that call, turns only before it', async () => {
    const r = await runReplay(db, { sessionId, strategy: 'dag' });
    const e = r.timeline!.events[0];
    const ctx = replayContextAt(db, r.runId, e.call);
    expect(ctx.position).toBe(e.turn);
    expect(ctx.summaries.map((s) => s.id).sort()).toEqual([...e.summaryIds].sort());
    expect(ctx.messages.some((m) => m.origin.kind === 'summary')).toBe(true);
    for (const m of ctx.messages) if (m.origin.kind === 'turn') expect(m.origin.position).toBeLessThan(e.turn);
    expect(validateMessages(ctx.messages, 'openai')).toEqual([]);
    expect(validateMessages(ctx.messages, 'anthropic')).toEqual([]);
  });

  it('the source baseline is Claude Code itself: its compaction at the call before turn 207, the estimate within 5% of its preTokens', async () => {
    const t = (await runReplay(db, { sessionId, strategy: 'masking' })).timeline!;
    const [ev] = t.baselines.source.events;
    expect(ev.turn).toBe(207);
    expect(ev.preTokens).toBe(167_094);
    expect(Math.abs(ev.contextBefore - 167_094) / 167_094).toBeLessThan(0.05);
    // Its record: the 152 calls of the main session, Claude Code's own compaction call, the 3 calls of its subagent.
    expect(t.baselines.source.lines!.map((l) => [l.kind, l.calls])).toEqual([['main', 152], ['compaction', 1], ['subagent', 3]]);
    expect(t.baselines.source.totals.modelCalls).toBe(156);
  });
});

describe('projected timeline (the window redraws it on every slider frame)', () => {
  it("a session's replay inputs are built once per turns, usage and compactions (the window projects on every settled slider move)", () => {
    const source = loadReplaySource(db, sessionId);
    const a = replayInputs(source);
    const again = replayInputs({ ...source, overheadTokens: 5_000, fit: null });
    expect(again.calls).toBe(a.calls);
    expect(again.model).toEqual({ a: 5_000, b: 1, source: 'parameter' });
    // Other usage: other calls (the first ten calls keep their recorded output, the rest fall back to their turns' tokens).
    const fewer = replayInputs({ ...source, usage: source.usage.slice(0, 10) });
    expect(fewer.calls).not.toBe(a.calls);
    expect(fewer.calls.filter((c) => c.timestampMs !== null)).toHaveLength(10);
    expect(a.calls.filter((c) => c.timestampMs !== null).length).toBeGreaterThan(100);
    // One entry per session: going back builds the first list again, equal to it.
    expect(replayInputs(source).calls).toEqual(a.calls);
  });
  it('dag condenses past depth 1 on a long generated session, firing again and again', async () => {
    const metas = syntheticSessionMetas(3000);
    const r = await projectTimeline({ prepared: prepareStrategy('dag', {}), metas, model: { a: 20_000, b: 1 } });
    expect(r.firings.length).toBeGreaterThan(5);
    expect(Math.max(...r.firings.map((f) => f.maxDepth))).toBeGreaterThanOrEqual(2);
    for (const c of r.calls.contextTokens) expect(c).toBeLessThanOrEqual(200_000);
  });
});
