/**
 * One context measure everywhere (shared/usage/measure.ts), on the real spotter 258c7280
 * session (152 model calls with Claude Code's recorded usage): the replay fires where the
 * design's rule says, by hand from the stored turns; `compact --as-of-call N` fires at every
 * call N where the replay fires, with the same figure at the first; two-line's ordinary
 * profile never fires below its emergency line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { runReplay } from '../../electron/engine/replay.js';
import { listTurnMetas } from '../../electron/store/turns.js';
import { FIXTURES, fixtureDb } from '../helpers/fixture-sessions.js';
import { listSessions } from '../../electron/store/sessions.js';
import { listModelCalls } from '../../electron/store/model-calls.js';
import { prepareStrategy } from '../../shared/strategies/index.js';
import { projectTimeline } from '../../shared/replay/projection.js';
import { replayInputs } from '../../shared/replay/timeline.js';
import { loadReplaySource, runCompaction } from '../../electron/engine/engine.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { callsOf } from '../../shared/replay/live.js';
import { safeCutAtOrBefore, buildSpanIndex } from '../../shared/strategies/spans.js';
import type { StrategyName } from '../../shared/strategies/types.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
let dir: string;
let db: DB;
let sessionId: number;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-measure-'));
  db = openDatabase(path.join(dir, 'studio.sqlite'));
  sessionId = importFiles(db, [SPOTTER]).sessions[0].id;
});
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The first number after `word` in a reason ("context 150,050 calibrated tokens" -> 150050). */
const figureAfter = (reason: string, word: string): number => {
  const m = new RegExp(`${word} ([0-9][0-9,.]*)`).exec(reason);
  if (!m) throw new Error(`no "${word} N" in: ${reason}`);
  return Number(m[1].replace(/,/g, ''));
};

describe('watermark on spotter by raw transcript tokens', () => {
  it('fires at every call where pending >= softThresholdTokens first holds after the previous watermark (checked by hand)', async () => {
    const params = { contextMeasure: 'transcript' };
    const r = await runReplay(db, { sessionId, strategy: 'watermark', params });
    expect(r.status).toBe('completed');
    // By hand: the rule at every call, from the stored turns (5 preserved turns, 30,000 soft, no spending).
    const metas = listTurnMetas(db, sessionId);
    const ix = buildSpanIndex(metas);
    const expected: number[] = [];
    let watermark = 0;
    callsOf(metas).forEach((call, k) => {
      const conv = metas.slice(0, call.position).filter((m) => m.role !== 'system');
      const tailStart = conv.length > 5 ? conv[conv.length - 5].position : 0;
      let pending = 0;
      for (const m of conv) if (m.position >= watermark && m.position < tailStart) pending += m.tokenCount;
      if (pending < 30_000) return;
      const cut = safeCutAtOrBefore(ix, tailStart);
      if (cut <= watermark) return;
      expected.push(k);
      watermark = cut;
    });
    expect(expected.length).toBeGreaterThanOrEqual(4);
    expect(r.timeline!.events.map((e) => e.call)).toEqual(expected);
    for (const e of r.timeline!.events) expect(figureAfter(e.reason, 'pending')).toBeGreaterThanOrEqual(30_000);
  });
});

describe('compact --as-of-call N fires where the replay fires', () => {
  const cases: Array<{ strategy: StrategyName; word: string }> = [
    { strategy: 'dag', word: 'context' },
    { strategy: 'watermark', word: 'pending' },
    { strategy: 'two-line', word: 'pressure' },
  ];
  for (const { strategy, word } of cases) {
    it(`${strategy}: at every firing call, with the replay's figure at the first`, async () => {
      const r = await runReplay(db, { sessionId, strategy });
      expect(r.status).toBe('completed');
      // Where the view changed: a firing, or a background pass landing (two-line's 'commit').
      const fires = r.timeline!.events.filter((e) => e.spans > 0);
      expect(fires.length).toBeGreaterThanOrEqual(1);
      for (const [i, e] of fires.entries()) {
        const c = await runCompaction(db, { sessionId, strategy, params: {}, asOfCall: e.call });
        expect(c.status, `as of call ${e.call}: ${String(c.stats.reason)}`).toBe('completed');
        const asOf = figureAfter(String(c.stats.reason), word);
        // The first firing sees the same context (nothing compacted before it in either); later
        // ones see at least the replay's (the replay compacted earlier, as of call N did not), and
        // so does a commit (its reason carries the pressure where its pass was scheduled).
        if (i === 0 && e.kind === 'fire') expect(asOf).toBe(figureAfter(e.reason, word));
        else expect(asOf).toBeGreaterThanOrEqual(figureAfter(e.reason, word));
      }
    });
  }
});

describe("two-line's ordinary profile", () => {
  it('never fires below its emergency line (nothing between the lines)', async () => {
    const r = await runReplay(db, { sessionId, strategy: 'two-line', params: { profile: 1, contextWindow: 150_000 } });
    expect(r.status).toBe('completed');
    const events = r.timeline!.events;
    expect(events.length).toBeGreaterThanOrEqual(1);
    for (const e of events) expect(figureAfter(e.reason, 'pressure')).toBeGreaterThanOrEqual(80);
  });
});

describe('what a two-line firing reports', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    server.setDefault({ kind: 'summary' });
  });
  afterAll(async () => {
    await server.close();
  });

  it("a background pass's summarizing is charged to the commit it lands as, linked to the call that scheduled it", async () => {
    const summarizer = { kind: 'openai' as const, baseURL: server.baseURL, model: 'fake-model', apiKey: 'test-key', maxRetries: 0, timeoutMs: 10_000 };
    const r = await runReplay(db, { sessionId, strategy: 'two-line', params: { contextMeasure: 'transcript', contextWindow: 150_000 }, summarizer });
    expect(r.status).toBe('completed');
    const events = r.timeline!.events;
    const commits = events.filter((e) => e.kind === 'commit');
    expect(commits.length).toBeGreaterThanOrEqual(1);
    for (const c of commits) {
      expect(c.scheduledAt).toBeLessThan(c.call);
      // The chunks were summarized when the pass was scheduled, with no view change then: that work is this commit's.
      expect(c.summarizerCalls).toBeGreaterThan(0);
      expect(c.tokensIn).toBeGreaterThan(0);
    }
    // Every request the server answered is on some event: none is lost with a firing that changed nothing yet.
    expect(events.reduce((a, e) => a + e.summarizerCalls, 0)).toBe(server.requests.length);
  });
});

describe('compact --as-of-call N fires where the replay first fires, on every fixture session with usage', () => {
  // Parameter points that fire on the small fixtures (the defaults rarely do). The first firing is
  // where the replay and a one-shot pass as of that call see the very same context (nothing was
  // compacted before it in either); it is found by the projection (the same loop and triggers,
  // summaries as stand-ins, which change nothing before the first firing).
  const POINTS: Record<string, Record<string, unknown>> = {
    dag: { tokenBudget: 20000 },
    rolling: { replayTriggerTokens: 10000 },
    watermark: { softThresholdTokens: 3000, hardCapTokens: 8000 },
    'two-line': { contextWindow: 20000, profile: 1 },
    masking: { maskWindow: 2 },
    window: { maxTurns: 5 },
    forgetting: { maxSize: 20 },
    codex: { autoCompactTokenLimit: 20000 },
    'claude-code': { contextWindow: 40000 },
  };
  it('for every strategy', async () => {
    const f = fixtureDb();
    try {
      const roots = listSessions(f.db).filter((s) => s.parentSessionId === null && listModelCalls(f.db, s.id).length > 0);
      expect(roots.length).toBeGreaterThanOrEqual(10);
      const misses: string[] = [];
      let checked = 0;
      for (const s of roots) {
        const src = loadReplaySource(f.db, s.id);
        const inputs = replayInputs(src);
        for (const [strategy, params] of Object.entries(POINTS)) {
          const prepared = prepareStrategy(strategy as StrategyName, params);
          const p = await projectTimeline({ prepared, metas: src.metas, calls: inputs.calls, model: inputs.model });
          const first = p.firings.find((x) => x.created.length > 0 || x.kind === 'fire');
          if (!first) continue;
          const c = await runCompaction(f.db, { sessionId: s.id, strategy: prepared.strategy, params, asOfCall: first.call });
          checked++;
          if (c.status !== 'completed') misses.push(`session ${s.id} ${strategy} call ${first.call}: ${String(c.stats.reason)}`);
        }
      }
      expect(misses).toEqual([]);
      expect(checked).toBeGreaterThan(40);
    } finally {
      f.close();
    }
  }, 300_000);
});
