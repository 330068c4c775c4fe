/**
 * The caching model (shared/cost/caching.ts) on hand-made sessions whose every figure is
 * computed by hand below: expiry by timestamps, a hit refreshing the lifetime, a
 * compaction turning everything after the changed prefix into writes, OpenAI's 1,024-token
 * minimum and 128-token increments.
 */
import { describe, expect, it } from 'vitest';
import { priceRecordedUsage, simulateCallColumns, simulateCalls, type CallCost, type CostTotals, type SimCall } from '../../shared/cost/caching.js';
import type { ModelCallUsage } from '../../shared/usage/types.js';

/** The sums of per-call costs, in call order: what simulateCallColumns' totals must equal. */
function totals(costs: readonly CallCost[]): CostTotals {
  const t: CostTotals = { calls: 0, promptTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, uncachedInputTokens: 0, outputTokens: 0, costUsd: 0 };
  for (const c of costs) {
    t.calls += 1;
    t.promptTokens += c.promptTokens;
    t.cacheReadTokens += c.cacheReadTokens;
    t.cacheWriteTokens += c.cacheWriteTokens;
    t.uncachedInputTokens += c.uncachedInputTokens;
    t.outputTokens += c.outputTokens;
    t.costUsd += c.costUsd;
  }
  return t;
}

const T0 = Date.parse('2026-01-05T09:00:00Z');
const MIN = 60_000;

/**
 * A Claude agent session (claude-sonnet-4-5: input $3, output $15, 5m write $3.75,
 * 1h write $6, read $0.30 per million). The prompt grows; call 5 follows a compaction that
 * kept the first 6,000 tokens (system, tools, first messages) and replaced the rest.
 */
const anthropicSession: SimCall[] = [
  { timestampMs: T0, promptTokens: 10_000, sharedPrefixTokens: 0, outputTokens: 500 },
  { timestampMs: T0 + 2 * MIN, promptTokens: 12_000, sharedPrefixTokens: 10_000, outputTokens: 400 },
  { timestampMs: T0 + 6 * MIN, promptTokens: 15_000, sharedPrefixTokens: 12_000, outputTokens: 300 },
  { timestampMs: T0 + 12 * MIN, promptTokens: 16_000, sharedPrefixTokens: 15_000, outputTokens: 200 },
  { timestampMs: T0 + 13 * MIN, promptTokens: 8_000, sharedPrefixTokens: 6_000, outputTokens: 600 },
  { timestampMs: T0 + 16 * MIN, promptTokens: 9_000, sharedPrefixTokens: 8_000, outputTokens: 100 },
];

describe('Anthropic caching (one breakpoint at the end of each prompt)', () => {
  it('5-minute TTL: reads what the previous prompt cached, writes the rest, and rewrites everything after a gap longer than 5 minutes', () => {
    const costs = simulateCalls(anthropicSession, { model: 'claude-sonnet-4-5-20250929', ttl: '5m' });
    // In micro-dollars (tokens × $/M):
    // 1. first call: write 10,000 × 3.75 = 37,500; output 500 × 15 = 7,500 → 45,000
    // 2. +2 min: read 10,000 × 0.30 = 3,000; write 2,000 × 3.75 = 7,500; output 400 × 15 = 6,000 → 16,500
    // 3. +4 min (6 min after call 1, but call 2's hit refreshed the lifetime): read 12,000 × 0.30 = 3,600;
    //    write 3,000 × 3.75 = 11,250; output 300 × 15 = 4,500 → 19,350
    // 4. +6 min > 5 min: expired, write all 16,000 × 3.75 = 60,000; output 200 × 15 = 3,000 → 63,000
    // 5. +1 min, after a compaction: read the 6,000 unchanged × 0.30 = 1,800; write 2,000 × 3.75 = 7,500;
    //    output 600 × 15 = 9,000 → 18,300
    // 6. +3 min: read 8,000 × 0.30 = 2,400; write 1,000 × 3.75 = 3,750; output 100 × 15 = 1,500 → 7,650
    expect(costs.map((c) => [c.cacheReadTokens, c.cacheWriteTokens, c.uncachedInputTokens])).toEqual([
      [0, 10_000, 0],
      [10_000, 2_000, 0],
      [12_000, 3_000, 0],
      [0, 16_000, 0],
      [6_000, 2_000, 0],
      [8_000, 1_000, 0],
    ]);
    const micro = [45_000, 16_500, 19_350, 63_000, 18_300, 7_650];
    costs.forEach((c, i) => expect(c.costUsd).toBeCloseTo(micro[i] / 1e6, 12));
    // 45,000 + 16,500 + 19,350 + 63,000 + 18,300 + 7,650 = 169,800 → $0.1698
    const t = totals(costs);
    expect(t).toMatchObject({ calls: 6, promptTokens: 70_000, cacheReadTokens: 36_000, cacheWriteTokens: 34_000, uncachedInputTokens: 0, outputTokens: 2_100 });
    expect(t.costUsd).toBeCloseTo(0.1698, 12);
  });

  it('1-hour TTL: writes cost 2× input, and the 6-minute gap no longer expires the cache', () => {
    const costs = simulateCalls(anthropicSession, { model: 'claude-sonnet-4-5', ttl: '1h' });
    // Writes at 6.00 instead of 3.75; call 4 now reads 15,000 and writes 1,000:
    // 1. 10,000 × 6 + 7,500 = 67,500
    // 2. 3,000 + 2,000 × 6 + 6,000 = 21,000
    // 3. 3,600 + 3,000 × 6 + 4,500 = 26,100
    // 4. 15,000 × 0.30 = 4,500 + 1,000 × 6 = 6,000 + 3,000 = 13,500
    // 5. 1,800 + 2,000 × 6 + 9,000 = 22,800
    // 6. 2,400 + 1,000 × 6 + 1,500 = 9,900
    // total 160,800 → $0.1608 (cheaper than the 5-minute TTL here, because of call 4)
    expect(costs[3]).toMatchObject({ cacheReadTokens: 15_000, cacheWriteTokens: 1_000 });
    const micro = [67_500, 21_000, 26_100, 13_500, 22_800, 9_900];
    costs.forEach((c, i) => expect(c.costUsd).toBeCloseTo(micro[i] / 1e6, 12));
    expect(totals(costs).costUsd).toBeCloseTo(0.1608, 12);
  });

  it('1-hour TTL expires after a gap longer than an hour; a gap of exactly the TTL still hits', () => {
    const calls: SimCall[] = [
      { timestampMs: T0, promptTokens: 5_000, sharedPrefixTokens: 0, outputTokens: 0 },
      { timestampMs: T0 + 60 * MIN, promptTokens: 6_000, sharedPrefixTokens: 5_000, outputTokens: 0 },
      { timestampMs: T0 + 121 * MIN, promptTokens: 7_000, sharedPrefixTokens: 6_000, outputTokens: 0 },
    ];
    const costs = simulateCalls(calls, { model: 'claude-opus-4-6', ttl: '1h' });
    expect(costs.map((c) => [c.cacheReadTokens, c.cacheWriteTokens])).toEqual([
      [0, 5_000],
      [5_000, 1_000],
      [0, 7_000],
    ]);
    // claude-opus-4-6: 1h write $10, read $0.50. Call 2: 5,000 × 0.5 + 1,000 × 10 = 12,500 µ$.
    expect(costs[1].costUsd).toBeCloseTo(0.0125, 12);
  });

  it('assumes nothing expired when a timestamp is missing', () => {
    const calls: SimCall[] = [
      { timestampMs: T0, promptTokens: 5_000, sharedPrefixTokens: 0, outputTokens: 0 },
      { timestampMs: null, promptTokens: 6_000, sharedPrefixTokens: 5_000, outputTokens: 0 },
      { timestampMs: T0 + 600 * MIN, promptTokens: 7_000, sharedPrefixTokens: 6_000, outputTokens: 0 },
    ];
    expect(simulateCalls(calls, { model: 'claude-opus-4-6', ttl: '5m' }).map((c) => c.cacheReadTokens)).toEqual([0, 5_000, 6_000]);
  });
});

/**
 * An OpenAI session (gpt-4.1: input $2, cached input $0.50, output $8 per million; no write
 * surcharge; idle expiry modelled as 5 minutes).
 */
const openAiSession: SimCall[] = [
  { timestampMs: T0, promptTokens: 900, sharedPrefixTokens: 0, outputTokens: 100 },
  { timestampMs: T0 + 1 * MIN, promptTokens: 1_500, sharedPrefixTokens: 900, outputTokens: 100 },
  { timestampMs: T0 + 2 * MIN, promptTokens: 2_000, sharedPrefixTokens: 1_500, outputTokens: 200 },
  { timestampMs: T0 + 8 * MIN, promptTokens: 2_500, sharedPrefixTokens: 2_000, outputTokens: 100 },
  { timestampMs: T0 + 10 * MIN, promptTokens: 1_300, sharedPrefixTokens: 1_100, outputTokens: 50 },
];

describe('OpenAI caching (automatic, 1,024-token minimum, 128-token increments)', () => {
  it('caches only shared prefixes of 1,024+ tokens, rounded down to 128, expires after 5 idle minutes, never charges a write', () => {
    const costs = simulateCalls(openAiSession, { model: 'gpt-4.1-2025-04-14', ttl: '5m' });
    // In micro-dollars:
    // 1. first call: 900 uncached × 2 = 1,800; output 100 × 8 = 800 → 2,600
    // 2. shares 900 < 1,024: nothing cached; 1,500 × 2 = 3,000 + 800 → 3,800
    // 3. shares 1,500 → 11 × 128 = 1,408 cached × 0.5 = 704; 592 × 2 = 1,184; 200 × 8 = 1,600 → 3,488
    // 4. +6 min idle > 5: expired; 2,500 × 2 = 5,000 + 800 → 5,800
    // 5. after a compaction shares 1,100 → 8 × 128 = 1,024 cached × 0.5 = 512; 276 × 2 = 552; 50 × 8 = 400 → 1,464
    expect(costs.map((c) => [c.cacheReadTokens, c.cacheWriteTokens, c.uncachedInputTokens])).toEqual([
      [0, 0, 900],
      [0, 0, 1_500],
      [1_408, 0, 592],
      [0, 0, 2_500],
      [1_024, 0, 276],
    ]);
    const micro = [2_600, 3_800, 3_488, 5_800, 1_464];
    costs.forEach((c, i) => expect(c.costUsd).toBeCloseTo(micro[i] / 1e6, 12));
    // 2,600 + 3,800 + 3,488 + 5,800 + 1,464 = 17,152 → $0.017152
    const t = totals(costs);
    expect(t).toMatchObject({ calls: 5, promptTokens: 8_200, cacheReadTokens: 2_432, cacheWriteTokens: 0, uncachedInputTokens: 5_768, outputTokens: 550 });
    expect(t.costUsd).toBeCloseTo(0.017152, 12);
  });

  it('ignores the Anthropic TTL option', () => {
    const a = simulateCalls(openAiSession, { model: 'gpt-4.1', ttl: '5m' });
    const b = simulateCalls(openAiSession, { model: 'gpt-4.1', ttl: '1h' });
    expect(b).toEqual(a);
  });
});

describe('the column form (what a replay timeline prices its ~50,000 calls with)', () => {
  const columns = (calls: readonly SimCall[]) => ({
    count: calls.length,
    promptTokens: Float64Array.from(calls, (c) => c.promptTokens),
    sharedPrefixTokens: Float64Array.from(calls, (c) => c.sharedPrefixTokens),
    outputTokens: Float64Array.from(calls, (c) => c.outputTokens),
    timestampMs: Float64Array.from(calls, (c) => c.timestampMs ?? NaN),
  });
  // Calls 2 and 3 with no recorded time: the gaps into calls 2, 3 and 4 are unknown, and an unknown gap assumes nothing expired.
  const someUnknown: SimCall[] = anthropicSession.map((c, i) => ({ ...c, timestampMs: i === 1 || i === 2 ? null : c.timestampMs }));

  it.each([
    ['claude-sonnet-4-5', '5m', anthropicSession],
    ['claude-sonnet-4-5', '1h', someUnknown],
    ['gpt-4.1', '5m', openAiSession],
    ['llama3.1:8b', '5m', openAiSession],
  ] as const)('%s (%s): the same figures per call as simulateCalls, and their sums in call order', (model, ttl, calls) => {
    const objects = simulateCalls(calls, { model, ttl });
    const cols = simulateCallColumns(columns(calls), { model, ttl });
    expect(objects.map((c) => [c.cacheReadTokens, c.cacheWriteTokens, c.uncachedInputTokens, c.costUsd])).toEqual(objects.map((_, k) => [cols.cacheReadTokens[k], cols.cacheWriteTokens[k], cols.uncachedInputTokens[k], cols.costUsd[k]]));
    // Summed in the same order: equal to the last bit, not just close.
    expect(cols.totals).toEqual(totals(objects));
  });

  it('unknown times: a gap with an unknown end expires nothing (call 4 reads what call 3 cached; with both times known it had expired)', () => {
    const cols = simulateCallColumns(columns(someUnknown), { model: 'claude-sonnet-4-5', ttl: '5m' });
    expect(Array.from(cols.cacheReadTokens)).toEqual([0, 10_000, 12_000, 15_000, 6_000, 8_000]);
    expect(simulateCallColumns(columns(anthropicSession), { model: 'claude-sonnet-4-5', ttl: '5m' }).cacheReadTokens[3]).toBe(0);
  });
});

describe('unlisted and user-priced models', () => {
  it('an unlisted local model costs 0 but still shows its cache split (OpenAI-style rules)', () => {
    const costs = simulateCalls(openAiSession, { model: 'llama3.1:8b', ttl: '5m' });
    expect(costs.map((c) => c.cacheReadTokens)).toEqual([0, 0, 1_408, 0, 1_024]);
    expect(totals(costs).costUsd).toBe(0);
  });

  it('a user price with provider anthropic follows the Anthropic rules and multipliers', () => {
    const userPrices = { 'my-claude-proxy': { input: 2, output: 10, provider: 'anthropic' as const } };
    const [first, second] = simulateCalls(anthropicSession.slice(0, 2), { model: 'my-claude-proxy', ttl: '5m', userPrices });
    // 10,000 × 2.5 + 500 × 10 = 30,000; 10,000 × 0.2 + 2,000 × 2.5 + 400 × 10 = 11,000
    expect(first.costUsd).toBeCloseTo(0.03, 12);
    expect(second).toMatchObject({ cacheReadTokens: 10_000, cacheWriteTokens: 2_000 });
    expect(second.costUsd).toBeCloseTo(0.011, 12);
  });
});

function usage(o: Partial<ModelCallUsage>): ModelCallUsage {
  return { position: 1, turnId: 1, messageId: 'msg_1', model: 'claude-opus-4-6', timestamp: null, inputTokens: null, cacheWrite5mTokens: null, cacheWrite1hTokens: null, cacheReadTokens: null, outputTokens: null, placeholder: false, ...o };
}

describe('pricing a recorded call', () => {
  it('prices each recorded figure at its rate; the 5m option charges 1-hour writes at the 5-minute rate', () => {
    // claude-opus-4-6: input 5, 5m write 6.25, 1h write 10, read 0.5, output 25.
    const u = usage({ inputTokens: 10, cacheWrite5mTokens: 1_000, cacheWrite1hTokens: 2_000, cacheReadTokens: 100_000, outputTokens: 300 });
    // recorded: 50 + 6,250 + 20,000 + 50,000 + 7,500 = 83,800 µ$
    expect(priceRecordedUsage(u).costUsd).toBeCloseTo(0.0838, 12);
    // 5m: 50 + 3,000 × 6.25 = 18,750 + 50,000 + 7,500 = 76,300 µ$
    expect(priceRecordedUsage(u, undefined, { cacheWriteRate: '5m' }).costUsd).toBeCloseTo(0.0763, 12);
    expect(priceRecordedUsage(u).known).toBe(true);
  });

  it('an OpenAI usage record: uncached input, cached reads at the cached-input rate', () => {
    const u = usage({ model: 'gpt-4o-mini', inputTokens: 2_000, cacheReadTokens: 8_000, outputTokens: 500 });
    // 2,000 × 0.15 = 300 + 8,000 × 0.075 = 600 + 500 × 0.6 = 300 → 1,200 µ$
    expect(priceRecordedUsage(u).costUsd).toBeCloseTo(0.0012, 12);
  });

  it('a call with no model or an unlisted one costs 0 and says the price is unknown', () => {
    expect(priceRecordedUsage(usage({ model: null, inputTokens: 1_000, outputTokens: 1_000 }))).toEqual({ costUsd: 0, known: false });
    expect(priceRecordedUsage(usage({ model: 'qwen2.5-coder:32b', inputTokens: 1_000 }))).toEqual({ costUsd: 0, known: false });
    expect(priceRecordedUsage(usage({ model: 'qwen2.5-coder:32b', inputTokens: 1_000 }), { 'qwen2.5-coder': { input: 1, output: 1 } })).toEqual({ costUsd: 0, known: false });
    expect(priceRecordedUsage(usage({ model: 'qwen2.5-coder:32b', inputTokens: 1_000 }), { 'qwen2.5-coder:32b': { input: 1, output: 1 } }).costUsd).toBeCloseTo(0.001, 12);
  });
});
