/**
 * The summary cache (key: electron/summarize/cache.ts, rows: electron/store/summary-cache.ts) and the tier ladder with the
 * extractive summarizer (electron/summarize/tiers.ts).
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { summaryCacheKey } from '../../electron/summarize/cache.js';
import { cacheGet, cachePut, cacheRow, cacheSize } from '../../electron/store/summary-cache.js';
import { EXTRACTIVE_PROMPT_VERSION } from '../../shared/summarize/extractive.js';
import { normalizedLength, rejectOutput, Semaphore, summarizeWithTiers } from '../../electron/summarize/tiers.js';
import { fixtureFiles } from '../helpers/fixture-sessions.js';
import { countTokens } from '../../electron/tokenizer.js';
import { createExtractiveSummarizer } from '../../shared/summarize/extractive.js';
import { turnsToItems } from '../../shared/model/items.js';
import type { Summarizer, SummarizeRequest } from '../../shared/strategies/summarizer.js';
import type { Turn } from '../../shared/model/turn.js';

let db: DB;
afterEach(() => db?.close());

const turnAt = (id: number, position: number, textValue: string, timestamp: string): Turn => ({
  id,
  sessionId: 1,
  position,
  role: position % 2 ? 'assistant' : 'user',
  blocks: [{ type: 'text', text: textValue }],
  charCount: textValue.length,
  tokenCount: 0,
  timestamp,
  model: null,
  agentId: null,
  sourceIds: [`src-${id}`],
});

const longText = (i: number) => `Turn ${i}: we need to refactor electron/store/turns.ts so listTurnMetas reads tool_cycles once; decided to keep prefix sums in shared/strategies/spans.ts. ${'Details follow. '.repeat(20)}`;

describe('summary cache key', () => {
  it('ignores turn ids, positions, source ids and timestamps: the same content gives the same key', () => {
    const a = turnsToItems([turnAt(1, 0, longText(0), '2024-01-01T00:00:00Z'), turnAt(2, 1, longText(1), '2024-01-01T00:00:01Z')]);
    const b = turnsToItems([turnAt(901, 40, longText(0), '2025-06-30T12:00:00Z'), turnAt(902, 41, longText(1), '2025-06-30T12:00:09Z')]);
    const key = (items: typeof a, over: Partial<Parameters<typeof summaryCacheKey>[0]> = {}) =>
      summaryCacheKey({ request: { purpose: 'leaf', items, targetTokens: 500 }, model: 'extractive:extractive', promptVersion: 'extractive-1', tier: 'normal', ...over });
    expect(key(a)).toBe(key(b));
    expect(key(a)).toMatch(/^[0-9a-f]{64}$/);
    // ...but model, prompt version, max tokens, tier and content all change it
    const variants = [key(a, { model: 'openai:gpt-4o-mini' }), key(a, { promptVersion: 'extractive-3' }), key(a, { tier: 'aggressive' }), key(a, { request: { purpose: 'leaf', items: a, targetTokens: 501 } }), key(a.slice(1))];
    expect(new Set([key(a), ...variants]).size).toBe(6);
  });
});

describe('summary cache LRU', () => {
  it('keeps at most `limit` rows, evicting the least recently used', () => {
    db = openDatabase(':memory:');
    const entry = (t: string) => ({ text: t, tokenCount: 1, tier: 'normal' as const, model: 'm' });
    cachePut(db, 'k1', entry('one'), 3);
    cachePut(db, 'k2', entry('two'), 3);
    cachePut(db, 'k3', entry('three'), 3);
    expect(cacheGet(db, 'k1')?.text).toBe('one'); // k1 is now the most recent
    cachePut(db, 'k4', entry('four'), 3);
    expect(cacheSize(db)).toBe(3);
    expect(cacheGet(db, 'k2')).toBeNull();
    expect([cacheGet(db, 'k1')?.text, cacheGet(db, 'k3')?.text, cacheGet(db, 'k4')?.text]).toEqual(['one', 'three', 'four']);
  });

  it('defaults to 1000 rows', () => {
    db = openDatabase(':memory:');
    for (let i = 0; i < 1005; i++) cachePut(db, `k${i}`, { text: `t${i}`, tokenCount: 1, tier: 'normal', model: 'm' });
    expect(cacheSize(db)).toBe(1000);
    expect(cacheGet(db, 'k4')).toBeNull();
    expect(cacheGet(db, 'k5')?.text).toBe('t5');
  });
});

/** A summarizer that counts its calls and answers from a function (a test double of a model, not of our code). */
function scripted(answer: (req: SummarizeRequest) => string | Error): Summarizer & { calls: SummarizeRequest[] } {
  const calls: SummarizeRequest[] = [];
  return {
    kind: 'openai',
    model: 'scripted',
    promptVersion: 'p1',
    calls,
    async summarize(req) {
      calls.push(req);
      const a = answer(req);
      if (a instanceof Error) throw a;
      return { text: a, model: 'scripted' };
    },
  };
}

const ladder = (summarizer: Summarizer, items = turnsToItems([turnAt(1, 0, longText(0), ''), turnAt(2, 1, longText(1), '')]), extra = {}) =>
  summarizeWithTiers({ db, summarizer, request: { purpose: 'leaf', items, targetTokens: 300 }, countTokens: (t) => countTokens(t), semaphore: new Semaphore(2), signal: new AbortController().signal, ...extra });

describe("the cache row (the watermark design's)", () => {
  it('use_count starts at 1, last_read_at_ms is the time of the last write or hit, span_token_count_in is the span the pass measured', async () => {
    db = openDatabase(':memory:');
    const model = scripted(() => 'Refactor listTurnMetas; keep prefix sums in spans.ts.');
    const t0 = Date.now();
    const first = await ladder(model, undefined, { request: { purpose: 'leaf', items: turnsToItems([turnAt(1, 0, longText(0), ''), turnAt(2, 1, longText(1), '')]), targetTokens: 300, spanTokenCount: 1234 } });
    const t1 = Date.now();
    const written = cacheRow(db, first.cacheKey)!;
    expect(written).toMatchObject({ useCount: 1, spanTokenCountIn: 1234 });
    expect(written.lastReadAtMs).toBeGreaterThanOrEqual(t0);
    expect(written.lastReadAtMs).toBeLessThanOrEqual(t1);
    // A hit counts one use and moves the time; the span's count stays what the writer measured.
    db.prepare('UPDATE summary_cache SET last_read_at_ms = 1000').run();
    const hit = await ladder(model);
    expect(hit.cacheHit).toBe(true);
    const read = cacheRow(db, first.cacheKey)!;
    expect(read).toMatchObject({ useCount: 2, spanTokenCountIn: 1234 });
    expect(read.lastReadAtMs).toBeGreaterThanOrEqual(t1);
    // A writer that did not measure its span leaves the count unknown.
    cachePut(db, 'k-unmeasured', { text: 't', tokenCount: 1, tier: 'normal', model: 'm' });
    expect(cacheRow(db, 'k-unmeasured')).toMatchObject({ useCount: 1, spanTokenCountIn: null });
  });
});

describe('tier ladder', () => {
  it('records the tier that produced the text and caches each rung under its own key', async () => {
    db = openDatabase(':memory:');
    const model = scripted((req) => (req.tier === 'normal' ? new Error('boom') : 'Refactor listTurnMetas; keep prefix sums in spans.ts.'));
    const first = await ladder(model);
    expect(first).toMatchObject({ tier: 'aggressive', calls: 2, cacheHit: false, text: 'Refactor listTurnMetas; keep prefix sums in spans.ts.' });
    expect(model.calls.map((c) => [c.tier, c.targetTokens])).toEqual([
      ['normal', 300],
      ['aggressive', 150],
    ]);
    // a second run over the same span: zero calls, the aggressive entry is found
    const second = await ladder(model);
    expect(model.calls).toHaveLength(2);
    expect(second).toMatchObject({ tier: 'aggressive', calls: 0, cacheHit: true, text: first.text });
    // The row as the watermark design lists it: prompt version, span count (2 turns), use count (the write and 1 hit).
    expect(cacheRow(db, second.cacheKey)).toMatchObject({ promptVersion: 'p1', spanCount: 2, useCount: 2, tier: 'aggressive', model: 'scripted' });
    await ladder(model);
    expect(cacheRow(db, second.cacheKey)?.useCount).toBe(3);
  });

  it('a fallback is never served in place of the model: a re-run asks the model again, and reuses the cached fallback only once it failed again', async () => {
    db = openDatabase(':memory:');
    const model = scripted(() => '');
    const first = await ladder(model);
    expect(first.tier).toBe('fallback');
    expect(first.text.startsWith('[leaf summary of 2 items]')).toBe(true);
    const again = await ladder(model);
    expect(model.calls).toHaveLength(4);
    expect(again).toMatchObject({ tier: 'fallback', calls: 2, cacheHit: true, text: first.text });
    // The fallback row names the extractive rules that wrote it, not the model's prompt; the
    // hand-off summarizer returns no facts beside its text, so a hit brings back the text alone.
    expect(cacheRow(db, first.cacheKey)).toMatchObject({ promptVersion: EXTRACTIVE_PROMPT_VERSION, spanCount: 2, useCount: 2, tier: 'fallback' });
    expect(first.facts).toBeUndefined();
    const hit = await ladder(model);
    expect(hit).toMatchObject({ cacheHit: true, text: first.text });
    expect(hit.facts).toBeUndefined();
  });

  it('the extractive summarizer stays on the normal tier for a real span', async () => {
    db = openDatabase(':memory:');
    const s = await ladder(createExtractiveSummarizer());
    expect(s).toMatchObject({ tier: 'normal', model: 'extractive', calls: 1 });
    expect(s.tokenCount).toBe(countTokens(s.text));
  });

  it('rejects empty, verbatim and not-shorter outputs with a reason', () => {
    const src = 'user: please rename fooBar to bazQux in src/a.ts and src/b.ts, then run the tests again';
    expect(rejectOutput('   ', src, countTokens)).toBe('empty output');
    expect(rejectOutput(src, src, countTokens)).toBe('output is the source text verbatim');
    expect(rejectOutput('please rename fooBar to bazQux in src/a.ts and src/b.ts, then run', src, countTokens)).toBe('output is the source text verbatim');
    expect(rejectOutput(`${src} and also some more`, src, countTokens)).toBe('output is not shorter than the input');
    expect(rejectOutput('Rename fooBar→bazQux (src/a.ts, src/b.ts).', src, countTokens)).toBeNull();
  });

  it("normalizedLength is the length of the source's normalized text (whitespace runs as one space, trimmed), on every fixture line and on whitespace at the edges", () => {
    const normalize = (x: string) => x.replace(/\s+/g, ' ').trim();
    const texts = fixtureFiles().flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'));
    texts.push('', ' ', '\n\t a \u00a0\u2028 b\ufeff', '\u3000x', 'x\u200a', ' a  b ', 'ab', '\r\n\r\n');
    const wrong = texts.filter((x) => normalizedLength(x) !== normalize(x).length);
    expect(wrong.slice(0, 3)).toEqual([]);
    expect(texts.length).toBeGreaterThan(1000);
  });

  it('the semaphore rejects a waiting call when the run is cancelled', async () => {
    const sem = new Semaphore(1);
    const controller = new AbortController();
    let release!: () => void;
    const holder = sem.run(() => new Promise<void>((r) => (release = r)));
    const waiting = sem.run(async () => 'ran', controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    release();
    await holder;
    expect(await sem.run(async () => 'free again')).toBe('free again');
  });
});
