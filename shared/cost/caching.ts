/**
 * Prompt caching per provider, from the published rules, and the cost of model calls
 * under it. Two uses:
 * - `simulateCallColumns` (and `simulateCalls`, the same over objects): a sequence of calls
 *   the app builds (a replay, a counterfactual strategy, a baseline) → what each would have
 *   read from the cache, written to it, sent uncached, and cost.
 * - `priceRecordedUsage`: a call the source recorded (ModelCallUsage) → what it cost.
 * Prices come from the one table (prices.ts). docs/cost.md lists the simplifications.
 *
 * Anthropic (explicit `cache_control` breakpoints, up to 4 per request). Modelled as the
 * usual agent setup (Claude Code's): ONE breakpoint at the end of each prompt. So every
 * prompt token is either read or written; the next call reads the longest prefix it
 * shares with the previous prompt (cached at that prompt's breakpoint) and writes the rest
 * up to its own breakpoint. Writes cost 1.25× input for a 5-minute lifetime, 2× for 1 hour;
 * reads 0.1×. A hit refreshes the lifetime, so the entry lives `ttl` after the previous
 * call; a longer gap means it has expired and the whole prompt is written again.
 *
 * OpenAI (automatic, no `cache_control`): prompts of 1,024 tokens or more are cached; a hit
 * covers the shared prefix in 128-token increments (0, 1,024, 1,152, …); cached tokens cost
 * the model's cached-input rate and nothing is charged for writing. Entries expire after
 * 5–10 minutes idle: modelled as 5 minutes (`OPENAI_IDLE_EXPIRY_MS`, the conservative end:
 * it never invents a hit the provider may not give); `opts.ttl` does not apply.
 */
import type { ModelCallUsage } from '../usage/types.js';
import { priceOf, type Provider, type UserPrices } from './prices.js';

export type CacheTtl = '5m' | '1h';

export const CACHE_TTL_MS: Readonly<Record<CacheTtl, number>> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };
/** OpenAI's idle expiry: "5 to 10 minutes of inactivity"; the lower bound. */
export const OPENAI_IDLE_EXPIRY_MS = 5 * 60_000;
/** OpenAI caches prompts of at least this many tokens. */
export const OPENAI_MIN_CACHED_TOKENS = 1024;
/** OpenAI cache hits grow in steps of this many tokens. */
export const OPENAI_CACHE_INCREMENT = 128;

/** One model call to simulate. */
export interface SimCall {
  /** Tokens sent (the whole prompt: system, tools, messages). */
  promptTokens: number;
  /**
   * Tokens identical to the previous call's prompt, counted from the start. A compaction
   * changes the prompt from its first changed message on: this is where it stops. Ignored
   * on the first call.
   */
  sharedPrefixTokens: number;
  outputTokens: number;
  /** When the call was made (ms since the epoch); null = unknown, assume nothing expired. */
  timestampMs: number | null;
}

/** What one call read, wrote, sent uncached, and cost. */
export interface CallCost {
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Prompt tokens neither read from nor written to the cache, billed at the input rate. */
  uncachedInputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface SimOptions {
  /** The model of every call, unless `callModels` names each call's own. */
  model: string;
  /**
   * Each call's own model: `index[k]` is the position in `names` of call k's model. A call
   * whose model is not the previous call's reads nothing from the cache (a provider's cache
   * is per model) and is priced at its own model's rates and caching rules.
   */
  callModels?: { names: readonly string[]; index: ArrayLike<number> };
  /** Anthropic's write lifetime (and rate); OpenAI has none to choose. */
  ttl: CacheTtl;
  userPrices?: UserPrices;
  /**
   * Whose caching rules apply when the price does not say (an unlisted or user-priced
   * model). Default: the price's provider, else 'openai' (automatic prefix caching with no
   * write surcharge is also what local servers such as vLLM and llama.cpp do).
   */
  provider?: Provider;
}

const PER_MILLION = 1_000_000;

/** The calls to simulate as columns (a replay's 50,000 calls: no object per call). A NaN time is unknown. */
export interface SimColumns {
  count: number;
  promptTokens: ArrayLike<number>;
  sharedPrefixTokens: ArrayLike<number>;
  outputTokens: ArrayLike<number>;
  timestampMs: ArrayLike<number>;
}

/** What each call read, wrote, sent uncached and cost (index = call), with their sums in call order. */
export interface CostColumns {
  count: number;
  cacheReadTokens: Float64Array;
  cacheWriteTokens: Float64Array;
  uncachedInputTokens: Float64Array;
  costUsd: Float64Array;
  totals: CostTotals;
  /** The same sums per model, in the order the models first appear among the calls. */
  byModel: ModelCostTotals[];
}

/** Sums of the calls made at one model; `known` false when no price was found (its cost then counts 0). */
export interface ModelCostTotals extends CostTotals {
  model: string;
  known: boolean;
}

/**
 * Per call: cache reads, writes, uncached input and cost under the model's provider rules.
 * The one simulation (simulateCalls reads its objects through it).
 */
export function simulateCallColumns(c: SimColumns, opts: SimOptions): CostColumns {
  const names = opts.callModels?.names ?? [opts.model];
  const modelIndex = opts.callModels?.index;
  // One rate card per model, looked up once (a replay prices ~50,000 calls per projection).
  const cards = names.map((name) => {
    const price = priceOf(name, opts.userPrices);
    const provider: Provider = price.provider ?? opts.provider ?? 'openai';
    if (provider !== 'anthropic' && provider !== 'openai') {
      const unreachable: never = provider;
      throw new Error(`unknown provider ${String(unreachable)}`);
    }
    const anthropic = provider === 'anthropic';
    return { price, anthropic, expiryMs: anthropic ? CACHE_TTL_MS[opts.ttl] : OPENAI_IDLE_EXPIRY_MS, writeRate: opts.ttl === '1h' ? price.cacheWrite1h : price.cacheWrite5m };
  });
  const n = c.count;
  const buffer = new ArrayBuffer(4 * 8 * n);
  const emptyTotals = (): CostTotals => ({ calls: 0, promptTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, uncachedInputTokens: 0, outputTokens: 0, costUsd: 0 });
  const out: CostColumns = {
    count: n,
    cacheReadTokens: new Float64Array(buffer, 0, n),
    cacheWriteTokens: new Float64Array(buffer, 8 * n, n),
    uncachedInputTokens: new Float64Array(buffer, 16 * n, n),
    costUsd: new Float64Array(buffer, 24 * n, n),
    totals: { ...emptyTotals(), calls: n },
    byModel: [],
  };
  const perModel: Array<ModelCostTotals | undefined> = new Array(names.length);
  const t = out.totals;
  let previousModel = -1;
  for (let k = 0; k < n; k++) {
    const m = modelIndex ? modelIndex[k] : 0;
    const card = cards[m];
    const { price, anthropic } = card;
    const prompt = c.promptTokens[k];
    // The prefix the previous call left in the cache and this call can reuse (0 on the first call, after expiry or
    // when the model changed; an unknown time on either side: assume nothing expired).
    let shared = 0;
    if (k > 0 && m === previousModel && !(c.timestampMs[k] - c.timestampMs[k - 1] > card.expiryMs)) shared = Math.max(0, Math.min(c.sharedPrefixTokens[k], c.promptTokens[k - 1], prompt));
    previousModel = m;
    // Anthropic, one breakpoint at the end of the prompt: read what the previous prompt cached, write the rest.
    // OpenAI: a hit from 1,024 shared tokens, in 128-token steps; nothing written.
    const read = anthropic ? shared : shared >= OPENAI_MIN_CACHED_TOKENS ? Math.floor(shared / OPENAI_CACHE_INCREMENT) * OPENAI_CACHE_INCREMENT : 0;
    const write = anthropic ? prompt - read : 0;
    const uncached = prompt - read - write;
    const output = c.outputTokens[k];
    const cost = (read * price.cacheRead + write * card.writeRate + uncached * price.input + output * price.output) / PER_MILLION;
    out.cacheReadTokens[k] = read;
    out.cacheWriteTokens[k] = write;
    out.uncachedInputTokens[k] = uncached;
    out.costUsd[k] = cost;
    t.promptTokens += prompt;
    t.cacheReadTokens += read;
    t.cacheWriteTokens += write;
    t.uncachedInputTokens += uncached;
    t.outputTokens += output;
    t.costUsd += cost;
    let pm = perModel[m];
    if (pm === undefined) {
      pm = perModel[m] = { ...emptyTotals(), model: names[m], known: price.known };
      out.byModel.push(pm);
    }
    pm.calls += 1;
    pm.promptTokens += prompt;
    pm.cacheReadTokens += read;
    pm.cacheWriteTokens += write;
    pm.uncachedInputTokens += uncached;
    pm.outputTokens += output;
    pm.costUsd += cost;
  }
  return out;
}

/** Per call: cache reads, writes, uncached input and cost under the model's provider rules. */
export function simulateCalls(calls: readonly SimCall[], opts: SimOptions): CallCost[] {
  const n = calls.length;
  const cols = simulateCallColumns(
    {
      count: n,
      promptTokens: calls.map((c) => c.promptTokens),
      sharedPrefixTokens: calls.map((c) => c.sharedPrefixTokens),
      outputTokens: calls.map((c) => c.outputTokens),
      timestampMs: calls.map((c) => c.timestampMs ?? NaN),
    },
    opts,
  );
  return calls.map((c, k) => ({
    promptTokens: c.promptTokens,
    cacheReadTokens: cols.cacheReadTokens[k],
    cacheWriteTokens: cols.cacheWriteTokens[k],
    uncachedInputTokens: cols.uncachedInputTokens[k],
    outputTokens: c.outputTokens,
    costUsd: cols.costUsd[k],
  }));
}

/** Sums of a run of calls. */
export interface CostTotals extends CallCost {
  calls: number;
}

export interface RecordedPriceOptions {
  /**
   * 'recorded' (default, what the app shows): 5-minute writes at the 5-minute rate, 1-hour
   * writes at the 1-hour rate, as the provider billed them. '5m': every write at the
   * 5-minute rate, as ccusage 18 prices them (to compare with its figures).
   */
  cacheWriteRate?: 'recorded' | '5m';
}

/**
 * What a recorded call cost: uncached input, 5-minute and 1-hour cache writes, cache reads
 * and output, each at its rate. Absent figures count 0. A placeholder's figures are priced
 * as recorded (they are small); whether to trust them is the caller's call. `known` is
 * false for a model neither the table nor the user prices (its cost is then 0).
 */
export function priceRecordedUsage(u: ModelCallUsage, userPrices?: UserPrices, options: RecordedPriceOptions = {}): { costUsd: number; known: boolean } {
  const p = priceOf(u.model ?? '', userPrices);
  const w5 = u.cacheWrite5mTokens ?? 0;
  const w1 = u.cacheWrite1hTokens ?? 0;
  const writes = options.cacheWriteRate === '5m' ? (w5 + w1) * p.cacheWrite5m : w5 * p.cacheWrite5m + w1 * p.cacheWrite1h;
  const costUsd = ((u.inputTokens ?? 0) * p.input + writes + (u.cacheReadTokens ?? 0) * p.cacheRead + (u.outputTokens ?? 0) * p.output) / PER_MILLION;
  return { costUsd, known: p.known };
}

/** What the source's own calls cost, as columns: NaN where a call has no trusted record. */
export interface RecordedColumns {
  cacheReadTokens: Float64Array;
  cacheWriteTokens: Float64Array;
  uncachedInputTokens: Float64Array;
  costUsd: Float64Array;
}

/** Each call's recorded usage priced (`usage[k]` undefined: no record, NaN), one price lookup per model. */
export function recordedCallColumns(usage: ReadonlyArray<ModelCallUsage | undefined>, userPrices?: UserPrices): RecordedColumns {
  const n = usage.length;
  const out: RecordedColumns = { cacheReadTokens: new Float64Array(n).fill(NaN), cacheWriteTokens: new Float64Array(n).fill(NaN), uncachedInputTokens: new Float64Array(n).fill(NaN), costUsd: new Float64Array(n).fill(NaN) };
  const prices = new Map<string, ReturnType<typeof priceOf>>();
  for (let k = 0; k < n; k++) {
    const u = usage[k];
    if (!u) continue;
    const model = u.model ?? '';
    let p = prices.get(model);
    if (!p) prices.set(model, (p = priceOf(model, userPrices)));
    const w5 = u.cacheWrite5mTokens ?? 0;
    const w1 = u.cacheWrite1hTokens ?? 0;
    out.cacheReadTokens[k] = u.cacheReadTokens ?? 0;
    out.cacheWriteTokens[k] = w5 + w1;
    out.uncachedInputTokens[k] = u.inputTokens ?? 0;
    out.costUsd[k] = ((u.inputTokens ?? 0) * p.input + w5 * p.cacheWrite5m + w1 * p.cacheWrite1h + (u.cacheReadTokens ?? 0) * p.cacheRead + (u.outputTokens ?? 0) * p.output) / PER_MILLION;
  }
  return out;
}

/**
 * Replaces, in place, simulated calls by what the source recorded for the same call: call k
 * takes record `recordOf(k)` (-1: keep the simulation). For a call the source really made with
 * the same prompt (before anything changed it), the bill is known; simulating it would only add
 * the caching model's error. Totals and per-model sums follow.
 */
export function useRecordedCalls(costs: CostColumns, recorded: RecordedColumns, recordOf: (k: number) => number, modelOf: (k: number) => string): void {
  const t = costs.totals;
  const lines = new Map(costs.byModel.map((m) => [m.model, m]));
  for (let k = 0; k < costs.count; k++) {
    const r = recordOf(k);
    if (r < 0 || Number.isNaN(recorded.costUsd[r])) continue;
    const d = { read: recorded.cacheReadTokens[r] - costs.cacheReadTokens[k], write: recorded.cacheWriteTokens[r] - costs.cacheWriteTokens[k], uncached: recorded.uncachedInputTokens[r] - costs.uncachedInputTokens[k], cost: recorded.costUsd[r] - costs.costUsd[k] };
    costs.cacheReadTokens[k] = recorded.cacheReadTokens[r];
    costs.cacheWriteTokens[k] = recorded.cacheWriteTokens[r];
    costs.uncachedInputTokens[k] = recorded.uncachedInputTokens[r];
    costs.costUsd[k] = recorded.costUsd[r];
    for (const s of [t, lines.get(modelOf(k))]) {
      if (!s) continue;
      s.cacheReadTokens += d.read;
      s.cacheWriteTokens += d.write;
      s.uncachedInputTokens += d.uncached;
      s.costUsd += d.cost;
    }
  }
}
