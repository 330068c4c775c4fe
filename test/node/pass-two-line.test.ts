/**
 * The two-line pass through the real engine and store: background chunks between the
 * lines, the model-free digest at the emergency line and its upgrade, the abandon when
 * the history moves during the slow step, the turn-list fallback, and the scheduler's
 * one task per conversation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { planSession, runCompaction, type RunCompactionResult } from '../../electron/engine/engine.js';
import { fixtureDb, sessionBySource, turnsDump } from '../helpers/fixture-sessions.js';
import { conversationKey, sessionOfKey, TwoLineScheduler } from '../../electron/engine/two-line-scheduler.js';
import { templateIdFor } from '../../shared/summarize/prompts.js';
import { withSessionLock } from '../../electron/engine/locks.js';
import { historyOf } from '../../shared/passes/two-line.js';
import { buildSpanIndex, chunkRange } from '../../shared/strategies/spans.js';
import { listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { getVariant, insertSummary, listExistingSummaries, listRuns, listSummaries, listVariants, setVariantState } from '../../electron/store/variants.js';
import { countTokens } from '../../electron/tokenizer.js';
import { planFor } from '../../shared/strategies/index.js';
import type { SummarizeRequest } from '../../shared/strategies/summarizer.js';
import { buildReplay, validateMessages } from '../../shared/replay/index.js';
import type { DB } from '../../electron/store/db.js';
import { chatSession, insertSession, scriptedSummarizer, turnsTableSnapshot } from '../helpers/replay-fixtures.js';
import { tempDb } from '../helpers/temp-db.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});
function setup(): { db: DB; sessionId: number; total: number } {
  const t = tempDb();
  cleanup = t.cleanup;
  const sessionId = insertSession(t.db, chatSession(40, 60)); // system + 80 turns
  const total = listTurnMetas(t.db, sessionId).reduce((a, m) => a + m.tokenCount, 0);
  return { db: t.db, sessionId, total };
}
/** A window that puts the session at `pct` pressure. */
const windowAt = (total: number, pct: number) => Math.ceil(total / pct);
const eventKinds = (db: DB, r: RunCompactionResult) => listRuns(db, r.variantId).find((x) => x.id === r.runId)!.events.map((e) => e.kind);

/** A gate: summarizer calls wait on it until released. */
function gate() {
  let release!: () => void;
  let arrived!: () => void;
  const open = new Promise<void>((r) => (release = r));
  const firstArrival = new Promise<void>((r) => (arrived = r));
  return { wait: async () => { arrived(); await open; }, release: () => release(), firstArrival };
}

function replayOf(db: DB, sessionId: number, variantId: number) {
  const v = getVariant(db, variantId)!;
  return buildReplay({ strategy: 'two-line', turns: listTurns(db, sessionId), summaries: listSummaries(db, variantId), state: v.state, params: v.params, countTokens: (t) => countTokens(t) });
}

const BASE = { keepLast: 10, minBatch: 20, chunkChars: 4000 };

describe('two-line pass', () => {
  it('between the lines, reads the turns beyond the kept window in chunks and writes ONE summary row', async () => {
    const { db, sessionId, total } = setup();
    const before = turnsTableSnapshot(db);
    const params = { ...BASE, contextWindow: windowAt(total, 0.6) };
    const metas = listTurnMetas(db, sessionId);
    const plan = planFor('two-line', { turns: metas, summaries: [], state: {}, params });
    expect(plan.trigger.level).toBe('warning');
    const chunks = chunkRange(buildSpanIndex(metas), 1, 71, BASE.chunkChars, 'chars').length;
    expect(chunks).toBeGreaterThan(1);
    const r = await runCompaction(db, { sessionId, strategy: 'two-line', params });
    expect(r.status).toBe('completed');
    expect(turnsTableSnapshot(db)).toBe(before);

    const rows = listSummaries(db, r.variantId);
    // One row per pass (today's code wrote one row per chunk).
    expect(rows.map((s) => [s.kind, s.firstPosition, s.lastPosition, s.compacted])).toEqual([['chunk', 1, 70, false]]);
    expect(plan.spans.map((s) => [s.purpose, s.firstPosition, s.lastPosition])).toEqual([['chunk', 1, 70]]);
    expect(getVariant(db, r.variantId)!.state).toEqual({ coveredUntil: 71 });
    // The chunks are read one call each, then one call folds them into the row.
    expect(r.stats).toMatchObject({ level: 'warning', digestWritten: false, chunksCreated: chunks, summariesCreated: 1, turnsCompacted: 70, abandoned: false, summarizerCalls: chunks + 1, cacheHits: 0 });
    expect(eventKinds(db, r)).toEqual(['compaction_started', 'background_started', 'background_completed']);

    const replay = replayOf(db, sessionId, r.variantId);
    // The summary (user text) merges with the first kept turn, the user's turn 71.
    expect(replay.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const turn71 = metas[71];
    expect(replay.messages[1].parts).toEqual([{ kind: 'summary', summaryId: rows[0].id }, { kind: 'turn', turnId: turn71.id, position: 71 }]);
    expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);

    // The pressure is now low: a second call changes nothing and calls nobody.
    const again = await runCompaction(db, { sessionId, strategy: 'two-line', params });
    expect(again).toMatchObject({ status: 'skipped' });
    expect(again.stats).toMatchObject({ level: 'none', summarizerCalls: 0 });
  });

  it('at the emergency line, writes the model-free digest before any model call, then a new row supersedes it', async () => {
    const { db, sessionId, total } = setup();
    const params = { ...BASE, contextWindow: windowAt(total, 0.9) };
    let liveAtFirstCall: string[] | null = null;
    let variantId = 0;
    const summarizer = scriptedSummarizer({
      gate: async () => {
        liveAtFirstCall ??= listSummaries(db, variantId).filter((s) => !s.compacted).map((s) => `${s.kind}:${s.tier}:${s.model}:${s.firstPosition}-${s.lastPosition}`);
      },
    });
    const r = await runCompaction(db, { sessionId, strategy: 'two-line', params, summarizer, onRunStarted: (ids) => (variantId = ids.variantId) });
    expect(r.status).toBe('completed');
    expect(liveAtFirstCall).toEqual(['digest:digest:extractive:1-70']);

    const all = listSummaries(db, r.variantId);
    expect(all.map((s) => [s.kind, s.compacted])).toEqual([['digest', true], ['chunk', false]]);
    const [digest, model] = all;
    expect(digest).toMatchObject({ tier: 'digest', model: 'extractive', cacheHit: false, promptVersion: 'extractive-3' });
    expect(digest.text.startsWith('[digest summary of 70 items]')).toBe(true);
    expect(model).toMatchObject({ tier: 'normal', model: 'gpt-4o-mini', firstPosition: 1, lastPosition: 70 });
    expect(model.turnIds).toEqual(digest.turnIds);
    expect(r.stats).toMatchObject({ level: 'emergency', digestWritten: true, digestTurns: 70, digestsUpgraded: 1, summariesCreated: 2, turnsCompacted: 70 });
    expect(eventKinds(db, r)).toEqual(['compaction_started', 'digest_written', 'background_started', 'background_completed']);
    const replay = replayOf(db, sessionId, r.variantId);
    expect(replay.messages[1].parts?.[0]).toEqual({ kind: 'summary', summaryId: model.id });
    expect(replay.messages[1].parts?.filter((p) => p.kind === 'summary')).toHaveLength(1);
    expect(validateMessages(replay.messages, 'openai')).toEqual([]);
  });

  it('abandons its chunks when the history moves during the slow step, and the retry reads them from the cache', async () => {
    const { db, sessionId, total } = setup();
    const params = { ...BASE, contextWindow: windowAt(total, 0.6) };
    const g = gate();
    const calls: SummarizeRequest[] = [];
    const gated = scriptedSummarizer({ gate: g.wait, calls });
    let variantId = 0;
    const running = runCompaction(db, { sessionId, strategy: 'two-line', params, summarizer: gated, onRunStarted: (ids) => (variantId = ids.variantId) });
    await g.firstArrival;

    // Meanwhile another writer commits a digest of the same turns to the same variant.
    const metas = listTurnMetas(db, sessionId);
    const historyBefore = historyOf(metas, listExistingSummaries(db, variantId));
    const digestId = await withSessionLock(sessionId, () =>
      db.transaction(() => {
        const id = insertSummary(db, { variantId, runId: null, kind: 'digest', depth: 0, text: 'digest written meanwhile', tokenCount: 4, tier: 'digest', model: 'extractive', promptVersion: 'extractive-3', cacheKey: null, cacheHit: false, firstPosition: 1, lastPosition: 70, turnIds: metas.slice(1, 71).map((m) => m.id) });
        setVariantState(db, variantId, { coveredUntil: 71 });
        return id;
      })(),
    );
    expect(historyOf(metas, listExistingSummaries(db, variantId))).toEqual([`s${digestId}`, ...historyBefore.slice(70)]);
    g.release();
    const r = await running;

    expect(r.status).toBe('skipped');
    expect(r.stats).toMatchObject({ abandoned: true, chunksCreated: 0 });
    const events = listRuns(db, variantId).find((x) => x.id === r.runId)!.events;
    expect(events.map((e) => e.kind)).toEqual(['compaction_started', 'background_started', 'compaction_abandoned']);
    expect(events[2].data).toMatchObject({ step: 'background', expected: historyBefore[0], found: `s${digestId}` });
    expect(listSummaries(db, variantId).map((s) => [s.id, s.kind, s.compacted])).toEqual([[digestId, 'digest', false]]);
    // The chunks, then the call that folds them into one text.
    const chunkCalls = calls.length;
    expect(chunkCalls).toBeGreaterThan(2);

    // The retry upgrades the digest over the very same chunks, every one a cache hit; the one new
    // call is the digest upgrade (the digest template, with the digest to rewrite), not the old fold.
    const retry = await runCompaction(db, { sessionId, strategy: 'two-line', params, summarizer: scriptedSummarizer({ calls }) });
    expect(retry).toMatchObject({ status: 'completed', variantId });
    expect(retry.stats).toMatchObject({ digestsUpgraded: 1, chunksCreated: chunkCalls - 1, summariesCreated: 1, summarizerCalls: 1, cacheHits: chunkCalls - 1, abandoned: false });
    expect(calls).toHaveLength(chunkCalls + 1);
    expect(calls[chunkCalls]).toMatchObject({ purpose: 'digest', priorSummary: 'digest written meanwhile' });
  });

  it('turns a chunk the model cannot summarize into a bounded list of its turns, never its text', async () => {
    const { db, sessionId, total } = setup();
    const params = { ...BASE, contextWindow: windowAt(total, 0.6) };
    const calls: SummarizeRequest[] = [];
    const summarizer = scriptedSummarizer({ calls, fail: (req) => req.items.some((i) => i.text.startsWith('question 3:')) });
    const r = await runCompaction(db, { sessionId, strategy: 'two-line', params, summarizer });
    expect(r.status).toBe('completed');
    // The pass's one row is marked with the worst tier of its chunks.
    const rows = listSummaries(db, r.variantId);
    expect(rows.map((s) => [s.kind, s.tier])).toEqual([['chunk', 'fallback']]);
    // The failed chunk reaches the fold as a bounded list of its turns.
    const fold = calls[calls.length - 1];
    const lists = fold.items.filter((i) => i.text.startsWith('[Summary unavailable'));
    expect(lists).toHaveLength(1);
    const text = lists[0].text;
    const [, from, to] = /turns (\d+)-(\d+);/.exec(text)!.map(Number);
    const turns = listTurns(db, sessionId, { from, to: to + 1 });
    const lines = text.split('\n');
    expect(lines[0]).toBe(`[Summary unavailable: the summarizer failed on turns ${from}-${to}; their list instead]`);
    expect(lines).toHaveLength(turns.length + 1);
    turns.forEach((t, i) => {
      const full = (t.blocks[0] as { text: string }).text;
      expect(full.length).toBeGreaterThan(80);
      expect(lines[i + 1]).toBe(`- ${t.role}: ${full.slice(0, 80)}…`);
      expect(text.includes(full)).toBe(false);
    });
    expect(r.stats).toMatchObject({ fallbackChunks: 1 });
  });

  it('reports the 50/80 fallback for a nonsense pair of lines', async () => {
    const { db, sessionId, total } = setup();
    const r = await runCompaction(db, { sessionId, strategy: 'two-line', params: { ...BASE, contextWindow: windowAt(total, 0.6), warningPct: 95, emergencyPct: 90 } });
    expect(r.stats).toMatchObject({ level: 'warning', warningPct: 50, emergencyPct: 80, linesFellBack: true });
  });
});

describe('two-line stats say what the pass did', () => {
  it('turnsCompacted counts the turns the digest took out; tiersUsed lists the digest, the chunks and the fold', async () => {
    const { db, sessionId, total } = setup();
    const params = { ...BASE, contextWindow: windowAt(total, 0.9) };
    const r = await runCompaction(db, { sessionId, strategy: 'two-line', params, summarizer: scriptedSummarizer({}) });
    const metas = listTurnMetas(db, sessionId);
    const chunks = chunkRange(buildSpanIndex(metas), 1, 71, BASE.chunkChars, 'chars').length;
    expect(chunks).toBeGreaterThan(1);
    // The digest took turns 1-70 out; the model summary then replaced the digest (no new turn).
    expect(r.stats).toMatchObject({ digestWritten: true, digestTurns: 70, turnsCompacted: 70, digestsUpgraded: 1 });
    expect(r.stats.tiersUsed).toEqual({ digest: 1, normal: chunks + 1 });
  });

  it('between the lines, tiersUsed counts the fold beside the chunks', async () => {
    const { db, sessionId, total } = setup();
    const params = { ...BASE, contextWindow: windowAt(total, 0.6) };
    const r = await runCompaction(db, { sessionId, strategy: 'two-line', params, summarizer: scriptedSummarizer({}) });
    const chunks = r.stats.chunksCreated as number;
    expect(r.stats).toMatchObject({ turnsCompacted: 70, summarizerCalls: chunks + 1 });
    expect(r.stats.tiersUsed).toEqual({ normal: chunks + 1 });
  });

  it('a digest replaced by turn lists because every chunk failed is not counted as upgraded', async () => {
    const { db, sessionId, total } = setup();
    const params = { ...BASE, contextWindow: windowAt(total, 0.9) };
    const r = await runCompaction(db, { sessionId, strategy: 'two-line', params, summarizer: scriptedSummarizer({ fail: true }) });
    const chunks = r.stats.chunksCreated as number;
    expect(r.stats).toMatchObject({ digestWritten: true, fallbackChunks: chunks, digestsUpgraded: 0, turnsCompacted: 70 });
    // The digest, each chunk's turn list and the failed fold (the texts side by side).
    expect(r.stats.tiersUsed).toEqual({ digest: 1, fallback: chunks + 1 });
    const live = listSummaries(db, r.variantId).filter((s) => !s.compacted);
    expect(live.map((s) => [s.kind, s.model])).toEqual([['chunk', 'turn-list']]);
  });
});

describe("the digest-upgrade prompt (the compaction-between-turns design's background pass)", () => {
  it('a standing digest is rewritten through the digest template: the digest as the text to rewrite, the chunk summaries of its turns after it', async () => {
    const { db, sessionId, total } = setup();
    const calls: SummarizeRequest[] = [];
    const r = await runCompaction(db, { sessionId, strategy: 'two-line', params: { ...BASE, contextWindow: windowAt(total, 0.9) }, summarizer: scriptedSummarizer({ calls }) });
    const [digest, upgraded] = listSummaries(db, r.variantId);
    expect([digest.kind, upgraded.kind, upgraded.compacted]).toEqual(['digest', 'chunk', false]);
    const upgrade = calls[calls.length - 1];
    expect(templateIdFor(upgrade)).toBe('digest');
    expect(upgrade).toMatchObject({ purpose: 'digest', priorSummary: digest.text });
    // The chunks before it read the digest's turns with the chunk template.
    expect(calls.slice(0, -1).map((c) => c.purpose)).toEqual(Array(calls.length - 1).fill('chunk'));
    expect(upgrade.items).toHaveLength(calls.length - 1);
    expect(upgraded.text).toBe(`summary of ${calls.length - 1} items (digest)`);
  });

  it('between the lines (no digest) the fold keeps the chunk template', async () => {
    const { db, sessionId, total } = setup();
    const calls: SummarizeRequest[] = [];
    await runCompaction(db, { sessionId, strategy: 'two-line', params: { ...BASE, contextWindow: windowAt(total, 0.6) }, summarizer: scriptedSummarizer({ calls }) });
    expect(calls.map((c) => templateIdFor(c))).toEqual(Array(calls.length).fill('chunk'));
  });
});

describe('TwoLineScheduler', () => {
  it('runs one task per conversation; requests during a run only mark one rerun', async () => {
    const { db, sessionId, total } = setup();
    const params = { ...BASE, contextWindow: windowAt(total, 0.6) };
    const g = gate();
    const scheduler = new TwoLineScheduler();
    const key = conversationKey(sessionId, 'v');
    const started: string[] = [];
    const task = (name: string, summarizer = scriptedSummarizer({ gate: g.wait })) => async () => {
      started.push(name);
      return runCompaction(db, { sessionId, strategy: 'two-line', params, summarizer });
    };
    expect(scheduler.request(key, task('a'))).toBe('started');
    await g.firstArrival;
    expect(scheduler.isRunning(key)).toBe(true);
    expect(scheduler.request(key, task('b'))).toBe('rerun-marked');
    expect(scheduler.request(key, task('c'))).toBe('rerun-already-marked');
    expect(scheduler.hasRerun(key)).toBe(true);
    expect(started).toEqual(['a']);
    g.release();
    await scheduler.whenIdle(key);
    expect(scheduler.isRunning(key)).toBe(false);
    // The first run did the work; the one rerun (the latest request) found nothing left.
    expect(started).toEqual(['a', 'c']);
    const [variant] = listVariants(db, sessionId);
    const runs = listRuns(db, variant.id);
    expect(runs.map((x) => x.status)).toEqual(['completed', 'skipped']);
  });

  it('keeps conversations independent (two variants of one session, another session) and survives a failing task', async () => {
    const errors: unknown[] = [];
    const scheduler = new TwoLineScheduler((_, e) => errors.push(e));
    const order: string[] = [];
    const [a, b, other] = [conversationKey(1, 'a'), conversationKey(1, 'b'), conversationKey(2, 'a')];
    expect(scheduler.request(a, async () => { order.push('1a'); throw new Error('boom'); })).toBe('started');
    expect(scheduler.request(b, async () => { order.push('1b'); })).toBe('started');
    expect(scheduler.request(other, async () => { order.push('2a'); })).toBe('started');
    expect(scheduler.request(a, async () => { order.push('1a again'); })).toBe('rerun-marked');
    expect(scheduler.keys().map(sessionOfKey)).toEqual([1, 1, 2]);
    await Promise.all([a, b, other].map((k) => scheduler.whenIdle(k)));
    expect(order).toEqual(['1a', '1b', '2a', '1a again']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom']);
  });
});

describe('two-line on the real spotter 258c7280 session (306 turns, 140,001 tokens)', () => {
  it('sits between the lines with the defaults and summarizes the 265 turns beyond the kept window in 24 chunks, into one row', async () => {
    const f = fixtureDb();
    try {
      const s = sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
      // Raw transcript tokens (by the calibrated default this session is past the emergency line).
      const plan = planSession(f.db, { sessionId: s.id, strategy: 'two-line', params: { contextMeasure: 'transcript' } });
      expect(plan.trigger).toEqual({ compact: true, level: 'warning', pressure: 140001 / 200000, reason: 'pressure 70.0% of 200,000 tokens (140,001 transcript tokens), lines 50/80%: warning, background pass (265 pending turns)' });
      expect(plan.boundaries).toEqual([
        { kind: 'kept-window', position: 265, label: 'last 40 turns kept' },
        { kind: 'warning', position: 169, label: 'warning line: 50% of 200,000 tokens' },
      ]);
      expect(plan.spans.map((x) => [x.purpose, x.firstPosition, x.lastPosition])).toEqual([['chunk', 0, 264]]);
      const ix = buildSpanIndex(listTurnMetas(f.db, s.id));
      const chunks = chunkRange(ix, 0, 265, 18000, 'chars');
      expect(chunks).toHaveLength(24);
      // A tool cycle with a 54,188-character result stays whole: a chunk of its own past chunkChars.
      expect(chunks.slice(0, 3).map(([a, b]) => [a, b - 1, ix.convCharPrefix[b] - ix.convCharPrefix[a]])).toEqual([[0, 4, 16349], [5, 6, 54188], [7, 22, 14748]]);
      // 265 turns of 140,001 - kept tokens become one summary of at most 4,000 tokens.
      expect([plan.tokensBefore, plan.tokensAfter]).toEqual([140001, 140001 - plan.spans[0].tokens + 4000]);

      const before = turnsDump(f.db);
      const r = await runCompaction(f.db, { sessionId: s.id, strategy: 'two-line', params: { contextMeasure: 'transcript' } });
      expect(r.status).toBe('completed');
      expect(turnsDump(f.db)).toBe(before);
      expect(r.stats).toMatchObject({ chunksCreated: 24, summariesCreated: 1, turnsCompacted: 265, digestWritten: false, abandoned: false, summarizerCalls: 25 });
      const rows = listSummaries(f.db, r.variantId);
      expect(rows.map((c) => [c.firstPosition, c.lastPosition])).toEqual(plan.spans.map((x) => [x.firstPosition, x.lastPosition]));
      expect(getVariant(f.db, r.variantId)!.state).toEqual({ coveredUntil: 265 });
      const replay = replayOf(f.db, s.id, r.variantId);
      expect(validateMessages(replay.messages, 'openai')).toEqual([]);
      expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);
      // The kept window is whole in the replay.
      const shown = replay.messages.flatMap((m) => (m.parts ?? [m.origin]).flatMap((o) => (o.kind === 'turn' ? [o.position] : [])));
      expect(shown).toEqual(Array.from({ length: 41 }, (_, i) => 265 + i));
    } finally {
      f.close();
    }
  });
});
