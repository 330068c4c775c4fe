/**
 * The engine (electron/engine/engine.ts) on a real transcript: the 306-turn spotter
 * session (one Claude Code auto-compaction, 140,001 o200k tokens), imported with the
 * project's importer into a temporary SQLite file, compacted with the extractive
 * summarizer through the real dag pass.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { EngineError, findVariantFor, planSession, resolveVariantFor, runCompaction } from '../../electron/engine/engine.js';
import { listRuns, listSummaries, listVariants } from '../../electron/store/variants.js';
import { countTokens } from '../../electron/tokenizer.js';
import { ParamError } from '../../shared/strategies/params.js';
import { FIXTURES, turnsDump } from '../helpers/fixture-sessions.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
/** Small enough a budget that the 140,001-token session must compact; 8,000-token leaf chunks. */
const PARAMS = { tokenBudget: 40000, leafChunkTokens: 8000 };

let tmp: TempDb;
let db: DB;
let sessionId: number;
beforeEach(() => {
  tmp = tempDb('cs-engine-', 'studio.sqlite');
  db = tmp.db;
  const [s] = importFiles(db, [SPOTTER]).sessions;
  // The spotter fixture as stored (o200k_base): 306 turns, 140,001 tokens.
  expect([s.turns, s.tokens]).toEqual([306, 140001]);
  sessionId = s.id;
});
afterEach(() => tmp.cleanup());

const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('runCompaction', () => {
  it('runs a dag pass: one variant, one completed run, 18 leaves and 1 condensed summary, engine stats', async () => {
    const events: string[] = [];
    const result = await runCompaction(db, {
      sessionId,
      strategy: 'dag',
      params: PARAMS,
      onRunStarted: (ids) => events.push(`started ${ids.runId}/${ids.variantId}`),
      onProgress: (p) => events.push(`${p.done}/${p.total}`),
    });
    expect(result.status).toBe('completed');
    expect(result.error).toBeNull();
    expect(events[0]).toBe(`started ${result.runId}/${result.variantId}`);
    expect(events.slice(1)).toEqual(Array.from({ length: 20 }, (_, i) => `${i}/19`));
    // 18 leaves + 1 condensed = 19 calls; turns 0-288 compacted (the fresh tail starts at 289).
    expect(result.stats).toMatchObject({ leafSummariesCreated: 18, condensedSummariesCreated: 1, turnsCompacted: 289, tiersUsed: { normal: 19 }, summarizerCalls: 19, cacheHits: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 });
    // tokens the model sees = visibleTokens (shared/strategies/index.ts): before = the session's total, 140,001;
    // after = what the stored state leaves visible, the window's gauge figure.
    expect(result.stats.tokensBefore).toBe(140001);
    expect(result.stats.tokensAfter).toBe(planSession(db, { sessionId, strategy: 'dag', params: PARAMS, variantId: result.variantId }).tokensBefore);
    expect(result.stats.tokensAfter as number).toBeLessThan(6000);

    const [variant] = listVariants(db, sessionId);
    expect(variant).toMatchObject({ id: result.variantId, strategy: 'dag', summarizer: { kind: 'extractive', promptVersion: 'extractive-3' }, summaries: 19, runs: 1 });
    expect(variant.params).toMatchObject({ ...PARAMS, freshTailCount: 16, condensedMinFanout: 4, contextThreshold: 0.75 });
    const [run] = listRuns(db, result.variantId);
    expect(run).toMatchObject({ id: result.runId, status: 'completed', error: null, stats: result.stats });
    expect(run.params).toMatchObject({ ...PARAMS, force: false });

    const summaries = listSummaries(db, result.variantId);
    expect(summaries.map((s) => s.kind).sort()).toEqual(['condensed', ...Array(18).fill('leaf')]);
    for (const s of summaries) {
      expect(s).toMatchObject({ tier: 'normal', model: 'extractive', promptVersion: 'extractive-3', cacheHit: false, runId: result.runId });
      expect(s.tokenCount).toBe(countTokens(s.text));
      expect(s.text.startsWith(`[${s.kind === 'leaf' ? 'leaf' : 'condensed'} summary of`)).toBe(true);
    }
    // the protected fresh tail (the last 16 turns, slid to 289 to keep a tool cycle whole) is never summarized
    expect(Math.max(...summaries.map((s) => s.lastPosition))).toBe(288);
  });

  it('leaves the turns table byte-identical', async () => {
    const before = turnsDump(db);
    await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS });
    expect(turnsDump(db)).toBe(before);
  });

  it('a second run of the unchanged variant makes zero summarizer calls, forced or not', async () => {
    const first = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS });
    const second = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS });
    const forced = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, force: true });
    for (const r of [second, forced]) {
      expect(r.variantId).toBe(first.variantId);
      expect(r.status).toBe('skipped');
      expect(r.stats).toMatchObject({ summarizerCalls: 0, cacheHits: 0, tokensBefore: first.stats.tokensAfter, tokensAfter: first.stats.tokensAfter });
    }
    expect(listSummaries(db, first.variantId)).toHaveLength(19);
  });

  it('another variant cutting the same spans is served from the summary cache: zero calls', async () => {
    await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS });
    const other = await runCompaction(db, { sessionId, strategy: 'dag', params: { ...PARAMS, maxCondenseDepth: 3 } });
    expect(other.status).toBe('completed');
    expect(other.stats).toMatchObject({ summarizerCalls: 0, cacheHits: 19, leafSummariesCreated: 18 });
    expect(listSummaries(db, other.variantId).every((s) => s.cacheHit)).toBe(true);
    expect(listVariants(db, sessionId)).toHaveLength(2);
  });

  it('rejects bad parameters before recording anything', async () => {
    await expect(runCompaction(db, { sessionId, strategy: 'dag', params: { freshTailCount: -1 } })).rejects.toThrow(ParamError);
    await expect(runCompaction(db, { sessionId, strategy: 'dag', params: { freshTailCount: -1 } })).rejects.toThrow(/freshTailCount must be between 0 and/);
    await expect(runCompaction(db, { sessionId, strategy: 'dag', params: { nonsense: 1 } })).rejects.toThrow(/unknown parameter 'nonsense' for strategy dag/);
    expect([count('variants'), count('runs'), count('summaries')]).toEqual([0, 0, 0]);
  });

  it('an unknown session is a not_found error', async () => {
    await expect(runCompaction(db, { sessionId: 999, strategy: 'dag' })).rejects.toMatchObject({ name: 'EngineError', code: 'not_found', message: 'session 999 not found' });
    expect(() => planSession(db, { sessionId: 999, strategy: 'dag' })).toThrow(EngineError);
  });

  it('a failing commit ends the run failed with the message, and writes no summary', async () => {
    db.exec("CREATE TEMP TRIGGER simulate_disk_full BEFORE INSERT ON summaries BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END;");
    const result = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS });
    expect(result).toMatchObject({ status: 'failed', error: 'disk full (simulated)' });
    // Every summary was made (19 calls, as above), none committed: the replay is unchanged (139,992 as above).
    expect(result.stats).toMatchObject({ summarizerCalls: 19, tokensBefore: 140001, tokensAfter: 140001 });
    const [run] = listRuns(db, result.variantId);
    expect(run).toMatchObject({ status: 'failed', error: 'disk full (simulated)' });
    expect(run.endedAt).not.toBeNull();
    expect(count('summaries')).toBe(0);
    expect(count('summary_sources')).toBe(0);
  });

  it('a run cancelled before it starts ends cancelled with nothing written', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, signal: controller.signal });
    expect(result).toMatchObject({ status: 'cancelled', error: 'cancelled' });
    expect(result.stats).toMatchObject({ summarizerCalls: 0 });
    expect(listRuns(db, result.variantId).map((r) => r.status)).toEqual(['cancelled']);
    expect(count('summaries')).toBe(0);
  });
});

describe('planSession and resolveVariantFor', () => {
  it('plans without a summarizer call or any write', async () => {
    const tables = ['variants', 'runs', 'summaries', 'summary_cache'];
    const plan = planSession(db, { sessionId, strategy: 'dag', params: PARAMS });
    expect(tables.map(count)).toEqual([0, 0, 0, 0]);
    expect(plan.variantId).toBeNull();
    expect(plan.trigger).toMatchObject({ compact: true });
    // The planner counts stored tokens (140,001), the engine's stats the normalized replay (139,992).
    expect([plan.spans.length, plan.condense.length, plan.tokensBefore]).toEqual([18, 1, 140001]);
    expect(plan.boundaries.find((b) => b.kind === 'fresh-tail')?.position).toBe(289);
  });

  it('plans against the variant the same choice resolves to, once it has summaries', async () => {
    const result = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS });
    const plan = planSession(db, { sessionId, strategy: 'dag', params: PARAMS });
    expect(plan.variantId).toBe(result.variantId);
    expect(plan.trigger.compact).toBe(false);
    expect(plan.spans).toEqual([]);
    expect(planSession(db, { sessionId, strategy: 'dag', params: PARAMS, variantId: result.variantId }).variantId).toBe(result.variantId);
    // the window's findVariant finds the same variant (no new row)
    expect(findVariantFor(db, { sessionId, strategy: 'dag', params: { leafChunkTokens: '8000', tokenBudget: 40000 } })?.id).toBe(result.variantId);
    expect(resolveVariantFor(db, { sessionId, strategy: 'dag', params: { leafChunkTokens: '8000', tokenBudget: 40000 } }).id).toBe(result.variantId);
    expect(listVariants(db, sessionId)).toHaveLength(1);
    // ...and a different summarizer is a different variant
    expect(resolveVariantFor(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm' } }).id).not.toBe(result.variantId);
  });
});
