/**
 * The engine with the `openai` summarizer against a real OpenAI-compatible HTTP server
 * on 127.0.0.1 (test/helpers/fake-openai-server.ts), on the real spotter session:
 * summaries as the server wrote them, the concurrency limit on the wire, the fallback
 * tier when the server fails, and cancellation mid-pass leaving a consistent database.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { listRuns, listSummaries, listVariants } from '../../electron/store/variants.js';
import { listTurns } from '../../electron/store/turns.js';
import { turnsToItems, itemsToSourceText } from '../../shared/model/items.js';
import { OPENAI_PROMPT_VERSION } from '../../shared/summarize/prompts.js';
import { FIXTURES, turnsDump } from '../helpers/fixture-sessions.js';
import { fakeSummaryOf, startFakeOpenAiServer, transcriptOf, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const PARAMS = { tokenBudget: 40000, leafChunkTokens: 8000 };

let server: FakeOpenAiServer;
let tmp: TempDb;
let db: DB;
let sessionId: number;
beforeAll(async () => {
  server = await startFakeOpenAiServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  tmp = tempDb('cs-engine-openai-', 'studio.sqlite');
  db = tmp.db;
  sessionId = importFiles(db, [SPOTTER]).sessions[0].id;
  server.requests.length = 0;
  server.script([]);
  server.setDefault({ kind: 'summary' });
});
afterEach(() => tmp.cleanup());

const openai = (extra: { maxRetries?: number; timeoutMs?: number } = {}) => ({ kind: 'openai' as const, baseURL: server.baseURL, model: 'fake-model', apiKey: 'test-key', maxRetries: extra.maxRetries ?? 0, timeoutMs: extra.timeoutMs ?? 10_000 });
const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('engine with the openai summarizer', () => {
  it('writes the model summaries with model, prompt version and usage, each leaf chained to the previous one', async () => {
    server.setDefault({ kind: 'delay', ms: 30 });
    const result = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai(), concurrency: 2 });
    expect(result.status).toBe('completed');
    expect(server.requests).toHaveLength(19);
    // dag's continuity (lossless-claw): each leaf's prior is the previous leaf's summary, so leaves go one at a time.
    expect(server.maxInFlight()).toBe(1);
    const leaves = server.requests.filter((r) => !r.body!.messages[0].content.includes('You merge several consecutive'));
    expect(leaves).toHaveLength(18);
    expect(leaves[0].body!.messages[1].content).not.toContain('<previous_summary>');
    for (let i = 1; i < leaves.length; i++) expect(leaves[i].body!.messages[1].content).toContain(`<previous_summary>\n${fakeSummaryOf(leaves[i - 1].body)}\n</previous_summary>`);
    expect(result.stats).toMatchObject({ summarizerCalls: 19, cacheHits: 0, tiersUsed: { normal: 19 } });
    const usageIn = server.requests.reduce((n, r) => n + Math.ceil(r.rawBody.length / 4), 0);
    expect(result.stats.tokensIn).toBe(usageIn);

    const [variant] = listVariants(db, sessionId);
    expect(variant.summarizer).toEqual({ kind: 'openai', baseURL: server.baseURL, model: 'fake-model', promptVersion: OPENAI_PROMPT_VERSION });
    const summaries = listSummaries(db, result.variantId);
    const answers = new Set(server.requests.map((r) => fakeSummaryOf(r.body)));
    for (const s of summaries) {
      expect(answers.has(s.text)).toBe(true);
      expect(s).toMatchObject({ tier: 'normal', model: 'fake-model', promptVersion: OPENAI_PROMPT_VERSION });
    }
    // the leaf prompts carry the turns, the condensation prompt the 18 leaf summaries
    const condense = server.requests.filter((r) => r.body!.messages[0].content.includes('You merge several consecutive'));
    expect(condense).toHaveLength(1);
    expect(condense[0].body!.messages[1].content.split('summary: ').length - 1).toBe(18);
  });

  it('falls back to the extractive tier when every call fails, and never stores the source verbatim or empty', async () => {
    server.setDefault({ kind: 'status', status: 500 });
    const result = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai(), concurrency: 3 });
    expect(result.status).toBe('completed');
    expect(server.requests).toHaveLength(38); // normal + aggressive for each of 19 summaries, no client retries
    expect(result.stats).toMatchObject({ summarizerCalls: 38, tiersUsed: { fallback: 19 } });
    const turns = listTurns(db, sessionId);
    for (const s of listSummaries(db, result.variantId)) {
      expect(s.tier).toBe('fallback');
      expect(s.model).toBe('extractive');
      expect(s.text.trim().length).toBeGreaterThan(0);
      if (s.kind === 'leaf') expect(s.text).not.toBe(itemsToSourceText(turnsToItems(turns.filter((t) => s.turnIds.includes(t.id)))));
    }
    // The outage is over: a re-run over the same spans (another variant) asks the model again,
    // never served the fallbacks as the model's summaries.
    server.requests.length = 0;
    server.setDefault({ kind: 'summary' });
    const again = await runCompaction(db, { sessionId, strategy: 'dag', params: { ...PARAMS, maxCondenseDepth: 3 }, summarizer: openai() });
    expect(again.stats).toMatchObject({ summarizerCalls: 19, cacheHits: 0, tiersUsed: { normal: 19 } });
    expect(server.requests).toHaveLength(19);
    const answers = new Set(server.requests.map((r) => fakeSummaryOf(r.body)));
    for (const s of listSummaries(db, again.variantId)) {
      expect(s.tier).toBe('normal');
      expect(answers.has(s.text)).toBe(true);
    }
    // Now a model summarized them: the next re-run is served from the cache.
    server.requests.length = 0;
    const third = await runCompaction(db, { sessionId, strategy: 'dag', params: { ...PARAMS, maxCondenseDepth: 4 }, summarizer: openai() });
    expect(third.stats).toMatchObject({ summarizerCalls: 0, cacheHits: 19 });
    expect(server.requests).toHaveLength(0);
  });

  it("another endpoint with the same model name is not served this endpoint's summaries", async () => {
    const first = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai() });
    expect(first.stats).toMatchObject({ summarizerCalls: 19, cacheHits: 0 });
    const other = await startFakeOpenAiServer();
    try {
      const result = await runCompaction(db, { sessionId, strategy: 'dag', params: { ...PARAMS, maxCondenseDepth: 3 }, summarizer: { ...openai(), baseURL: other.baseURL } });
      expect(result.stats).toMatchObject({ summarizerCalls: 19, cacheHits: 0 });
      expect(other.requests).toHaveLength(19);
    } finally {
      await other.close();
    }
  });

  it('reports the HTTP requests made (retries included) and how many failed, apart from the summaries asked', async () => {
    // Every request fails with a 429 the client retries once (retry-after-ms 1): each
    // summarizer call is 2 requests; 19 summaries × 2 rungs = 38 calls = 76 requests.
    server.setDefault({ kind: 'status', status: 429, retryAfterMs: 1 });
    const result = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai({ maxRetries: 1 }), concurrency: 3 });
    expect(result.status).toBe('completed');
    expect(server.requests).toHaveLength(76);
    expect(result.stats).toMatchObject({ summariesRequested: 19, summarizerCalls: 38, requests: 76, failedRequests: 76, tiersUsed: { fallback: 19 } });
    // A healthy server: one request per call, none failed.
    server.requests.length = 0;
    server.setDefault({ kind: 'summary' });
    const ok = await runCompaction(db, { sessionId, strategy: 'dag', params: { ...PARAMS, maxCondenseDepth: 3 }, summarizer: openai({ maxRetries: 1 }) });
    expect(ok.stats).toMatchObject({ summarizerCalls: server.requests.length, requests: server.requests.length, failedRequests: 0 });
  });

  it('an echoing server never gets its echo stored', async () => {
    server.setDefault({ kind: 'echo' });
    const result = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai() });
    expect(result.stats).toMatchObject({ tiersUsed: { fallback: 19 } });
    // (a leaf's text does appear inside the condensation's prompt, as its input: compare with what was echoed)
    const echoes = new Set(server.requests.map((r) => transcriptOf(r.body)));
    expect(echoes.size).toBe(19);
    for (const s of listSummaries(db, result.variantId)) {
      expect(echoes.has(s.text)).toBe(false);
      // The extractive fallback's header (shared/summarize/extractive.ts): written by us, never by the echoing model.
      expect(s.text).toMatch(/^\[(leaf|condensed) summary of \d+ (items?|summaries)(; ran out of material at \d+ of \d+ tokens)?\]/);
    }
  });

  it('cancelling mid-pass ends the run cancelled: no summary, no running run, turns unchanged', async () => {
    const before = turnsDump(db);
    server.setDefault({ kind: 'delay', ms: 150 });
    const controller = new AbortController();
    const pending = runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai(), concurrency: 2, signal: controller.signal });
    await server.waitForRequests(3);
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ status: 'cancelled', error: 'cancelled' });
    expect(server.requests.length).toBeLessThan(19);
    expect(listRuns(db, result.variantId).map((r) => r.status)).toEqual(['cancelled']);
    expect(count("runs WHERE status = 'running'")).toBe(0);
    expect([count('summaries'), count('summary_sources')]).toEqual([0, 0]);
    expect(turnsDump(db)).toBe(before);

    // the retry completes; what the cancelled run was already answered comes from the cache
    server.setDefault({ kind: 'summary' });
    const retry = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai(), concurrency: 2 });
    expect(retry.status).toBe('completed');
    expect((retry.stats.cacheHits as number) + (retry.stats.summarizerCalls as number)).toBe(19);
    expect(retry.stats.cacheHits as number).toBeGreaterThanOrEqual(1);
  });
});
