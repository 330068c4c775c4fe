/**
 * The OpenAI-compatible summarizer with the real `openai` client against a real HTTP
 * server on 127.0.0.1 (test/helpers/fake-openai-server.ts): retries on the wire, the
 * tier ladder on failures and bad outputs, the concurrency limit, cancellation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { countTokens } from '../../electron/tokenizer.js';
import { createOpenAiSummarizer, OPENAI_PROMPT_VERSION } from '../../electron/summarize/openai.js';
import { createSummarizer } from '../../electron/summarize/index.js';
import { Semaphore, summarizeWithTiers } from '../../electron/summarize/tiers.js';
import { cacheSize } from '../../electron/store/summary-cache.js';
import type { SummarizeItem, SummarizeRequest } from '../../shared/strategies/summarizer.js';
import { itemsToSourceText } from '../../shared/model/items.js';
import { fakeSummaryOf, startFakeOpenAiServer, transcriptOf, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';

let server: FakeOpenAiServer;
let db: DB;
beforeAll(async () => {
  server = await startFakeOpenAiServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
  server.script([]);
  server.setDefault({ kind: 'summary' });
  db?.close();
});

/** A span big enough that a one-line summary is clearly shorter, distinct per test. */
function span(tag: string, turns = 6): SummarizeItem[] {
  const items: SummarizeItem[] = [];
  for (let i = 0; i < turns; i++) {
    items.push({ kind: 'turn', role: i % 2 === 0 ? 'user' : 'assistant', text: `${tag} step ${i}: please update electron/store/db.ts so that openDatabase(file) sets journal_mode=WAL and busy_timeout=5000; we decided to keep better-sqlite3 12.11.1. TODO: run npx vitest run test/node/db.test.ts afterwards.` });
  }
  return items;
}

function tiered(items: SummarizeItem[], summarizerOpts: { maxRetries?: number; timeoutMs?: number } = {}, extra: Partial<Parameters<typeof summarizeWithTiers>[0]> = {}) {
  db = openDatabase(':memory:');
  const summarizer = createOpenAiSummarizer({ baseURL: server.baseURL, model: 'fake-model', apiKey: 'test-key', maxRetries: summarizerOpts.maxRetries ?? 0, timeoutMs: summarizerOpts.timeoutMs ?? 5_000 });
  return summarizeWithTiers({
    db,
    summarizer,
    request: { purpose: 'leaf', items, targetTokens: 200 },
    countTokens: (t) => countTokens(t),
    semaphore: new Semaphore(4),
    signal: new AbortController().signal,
    ...extra,
  });
}

describe('openai summarizer on the wire', () => {
  it('sends the model, the API key, the leaf prompt with the transcript, temperature 0.2 and a max_tokens cap', async () => {
    const items = span('wire');
    const s = await tiered(items);
    expect(server.requests).toHaveLength(1);
    const r = server.requests[0];
    expect(r.path).toBe('/v1/chat/completions');
    expect(r.headers.authorization).toBe('Bearer test-key');
    expect(r.body!.model).toBe('fake-model');
    expect(r.body!.temperature).toBe(0.2);
    expect(r.body!.max_tokens).toBe(314); // ceil(200 * 1.25) + 64
    expect(r.body!.messages[0].role).toBe('system');
    expect(r.body!.messages[0].content).toContain('compress a segment');
    expect(r.body!.messages[0].content).toContain('3. In progress: the current task exactly');
    expect(r.body!.messages[0].content).toContain('character for character');
    expect(transcriptOf(r.body)).toBe(itemsToSourceText(items));
    expect(s).toMatchObject({ tier: 'normal', model: 'fake-model', cacheHit: false, calls: 1, text: fakeSummaryOf(r.body) });
    // usage from the response: prompt_tokens = ceil(raw body length / 4)
    expect(s.tokensIn).toBe(Math.ceil(r.rawBody.length / 4));
    expect(s.tokensOut).toBe(Math.ceil(s.text.length / 4));
  });

  it('uses a different prompt to condense summaries than to summarize turns', async () => {
    db = openDatabase(':memory:');
    const summarizer = createOpenAiSummarizer({ baseURL: server.baseURL, model: 'fake-model', apiKey: 'k', maxRetries: 0 });
    const items: SummarizeItem[] = span('condense', 4).map((i) => ({ ...i, kind: 'summary', role: 'summary' }));
    await summarizer.summarize({ purpose: 'condensed', items, targetTokens: 100, tier: 'normal' });
    await summarizer.summarize({ purpose: 'leaf', items: span('leaf', 4), targetTokens: 100, tier: 'normal' });
    const [condensed, leaf] = server.requests.map((r) => r.body!.messages[0].content);
    expect(condensed).toContain('You merge several consecutive leaf summaries');
    expect(leaf).not.toContain('You merge several consecutive');
    expect(server.requests[0].body!.messages[1].content).toContain('Summaries to merge into one depth-1 summary, oldest first');
  });

  it('retries a 429 after its retry-after-ms and a 500, then keeps the normal tier', async () => {
    server.script([{ kind: 'status', status: 429, retryAfterMs: 150 }, { kind: 'status', status: 500 }, { kind: 'summary' }]);
    const s = await tiered(span('retry'), { maxRetries: 3 });
    expect(server.requests.map((r) => r.reply)).toEqual(['status', 'status', 'summary']);
    expect(server.requests[1].arrivedAt - server.requests[0].arrivedAt).toBeGreaterThanOrEqual(140);
    // identical bodies: the same request retried, not a new tier
    expect(server.requests[2].rawBody).toBe(server.requests[0].rawBody);
    expect(s.tier).toBe('normal');
    expect(s.calls).toBe(1);
    expect(s.text).toBe(fakeSummaryOf(server.requests[2].body));
  });

  it('escalates to the aggressive tier (temperature 0, half the target) when retries are exhausted', async () => {
    server.script([{ kind: 'status', status: 500 }, { kind: 'status', status: 503 }, { kind: 'summary' }]);
    const s = await tiered(span('exhausted'), { maxRetries: 1 });
    expect(server.requests).toHaveLength(3);
    const aggressive = server.requests[2].body!;
    expect(aggressive.temperature).toBe(0);
    expect(aggressive.max_tokens).toBe(189); // target 100 (200 / 2): ceil(100 * 1.25) + 64
    expect(aggressive.messages[0].content).toContain('Be terse: at most 100 tokens');
    expect(s.tier).toBe('aggressive');
    expect(s.calls).toBe(2);
    expect(s.text.startsWith('Terse summary')).toBe(true);
  });

  it('treats a request that never answers as a timeout and retries it', async () => {
    server.script([{ kind: 'hang' }, { kind: 'summary' }]);
    const s = await tiered(span('timeout'), { maxRetries: 1, timeoutMs: 300 });
    expect(server.requests.map((r) => r.reply)).toEqual(['hang', 'summary']);
    expect(server.requests[1].arrivedAt - server.requests[0].arrivedAt).toBeGreaterThanOrEqual(290);
    expect(s.tier).toBe('normal');
  });

  it('escalates on empty content, then on a non-JSON body, and lands on the bounded extractive fallback', async () => {
    server.script([{ kind: 'empty' }, { kind: 'garbage' }]);
    const items = span('broken');
    const s = await tiered(items);
    expect(server.requests.map((r) => r.reply)).toEqual(['empty', 'garbage']);
    expect(s.tier).toBe('fallback');
    expect(s.model).toBe('extractive');
    expect(s.calls).toBe(2);
    expect(s.text.startsWith('[leaf summary of 6 items]')).toBe(true);
    expect(s.text.length).toBeLessThanOrEqual(400); // aggressive budget: max(240, min(200*4/2, source/2))
    expect(s.text).not.toBe(itemsToSourceText(items));
  });

  it('a JSON body without choices is malformed too', async () => {
    server.script([{ kind: 'garbage', contentType: 'application/json' }, { kind: 'summary' }]);
    const s = await tiered(span('json-garbage'));
    expect(s.tier).toBe('aggressive');
  });

  it('never accepts an echo of the source text: the ladder ends on the fallback', async () => {
    server.setDefault({ kind: 'echo' });
    const items = span('echo');
    const s = await tiered(items);
    expect(server.requests).toHaveLength(2);
    expect(s.tier).toBe('fallback');
    expect(s.text.trim().length).toBeGreaterThan(0);
    expect(s.text).not.toBe(itemsToSourceText(items));
    expect(itemsToSourceText(items).includes(s.text)).toBe(false);
  });

  it('rejects an output that is not shorter than the input and tries the aggressive tier', async () => {
    const items = span('long', 2);
    server.script([{ kind: 'text', text: `${itemsToSourceText(items)} and some more words to be longer` }, { kind: 'summary' }]);
    const s = await tiered(items);
    expect(s.tier).toBe('aggressive');
    expect(s.calls).toBe(2);
  });

  it('with allowFallback false, a failure of every model tier throws instead of falling back', async () => {
    server.setDefault({ kind: 'status', status: 500 });
    await expect(tiered(span('nofallback'), {}, { allowFallback: false })).rejects.toThrow(/summarizer failed on every tier: normal: .*500.*; aggressive: .*500/);
    expect(cacheSize(db)).toBe(0);
  });

  it('serves the same span from the cache: zero requests the second time', async () => {
    db = openDatabase(':memory:');
    const summarizer = createOpenAiSummarizer({ baseURL: server.baseURL, model: 'fake-model', apiKey: 'k', maxRetries: 0 });
    const run = () => summarizeWithTiers({ db, summarizer, request: { purpose: 'leaf', items: span('cached'), targetTokens: 200 }, countTokens: (t) => countTokens(t), semaphore: new Semaphore(1), signal: new AbortController().signal });
    const first = await run();
    const second = await run();
    expect(server.requests).toHaveLength(1);
    expect(second).toMatchObject({ text: first.text, tier: 'normal', cacheHit: true, calls: 0, cacheKey: first.cacheKey });
  });

  it('keeps at most N requests in flight under a semaphore of N', async () => {
    server.setDefault({ kind: 'delay', ms: 80 });
    db = openDatabase(':memory:');
    const summarizer = createOpenAiSummarizer({ baseURL: server.baseURL, model: 'fake-model', apiKey: 'k', maxRetries: 0 });
    const semaphore = new Semaphore(3);
    const signal = new AbortController().signal;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => summarizeWithTiers({ db, summarizer, request: { purpose: 'chunk', items: span(`par${i}`), targetTokens: 200 }, countTokens: (t) => countTokens(t), semaphore, signal })),
    );
    expect(server.requests).toHaveLength(10);
    expect(server.maxInFlight()).toBe(3);
    expect(Math.max(...server.requests.map((r) => r.inFlight))).toBe(3);
    expect(results.every((r) => r.tier === 'normal')).toBe(true);
  });

  it('cancelling rejects promptly even while the server never answers', async () => {
    server.setDefault({ kind: 'hang' });
    db = openDatabase(':memory:');
    const summarizer = createOpenAiSummarizer({ baseURL: server.baseURL, model: 'fake-model', apiKey: 'k', maxRetries: 3, timeoutMs: 30_000 });
    const controller = new AbortController();
    const started = Date.now();
    const p = summarizeWithTiers({ db, summarizer, request: { purpose: 'leaf', items: span('cancel'), targetTokens: 200 }, countTokens: (t) => countTokens(t), semaphore: new Semaphore(1), signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
    expect(cacheSize(db)).toBe(0);
  });

  it('refuses to build an api.openai.com summarizer without a key, naming OPENAI_API_KEY', () => {
    expect(() => createSummarizer({ kind: 'openai' }, {})).toThrow(/OPENAI_API_KEY/);
    const s = createSummarizer({ kind: 'openai', baseURL: server.baseURL, model: 'm' }, {});
    expect(s).toMatchObject({ kind: 'openai', model: 'm', promptVersion: OPENAI_PROMPT_VERSION });
  });
});

describe('request shapes', () => {
  it('every purpose builds a prompt, the rolling one carries the previous summary as input', async () => {
    db = openDatabase(':memory:');
    const summarizer = createOpenAiSummarizer({ baseURL: server.baseURL, model: 'fake-model', apiKey: 'k', maxRetries: 0 });
    const purposes: SummarizeRequest['purpose'][] = ['leaf', 'condensed', 'rolling', 'watermark', 'chunk', 'digest'];
    for (const purpose of purposes) await summarizer.summarize({ purpose, items: span(purpose, 2), priorSummary: 'Earlier: set up the repo.', targetTokens: 64, tier: 'normal' });
    const systems = server.requests.map((r) => r.body!.messages[0].content);
    expect(new Set(systems).size).toBe(6);
    expect(server.requests[2].body!.messages[1].content).toContain('Previous summary (to be replaced by yours');
    expect(server.requests[0].body!.messages[1].content).toContain('Summary of what came before (context only');
  });
});
