/**
 * The one price table: USD per 1,000,000 tokens per model, for summarizer calls (the
 * watermark strategy's per-session budget, run stats), replays and the window. See
 * docs/cost.md for where each figure comes from.
 *
 * - Standard tier list prices (no batch discount, no priority/fast tier, no long-context
 *   surcharge above 200k input tokens).
 * - Anthropic: cache write 1.25× input for the 5-minute TTL, 2× for the 1-hour TTL, cache
 *   read 0.1× input (the published multipliers; `anthropic()` derives them).
 * - OpenAI: caching is automatic and has no write surcharge, so both write rates equal the
 *   input rate; `cacheRead` is the model's published "cached input" rate (equal to input
 *   where the model has no cached-input discount).
 * - A model this table does not list (a local llama.cpp / vLLM / Ollama model, a new name)
 *   costs 0 and is reported `known: false`, unless the user sets its price
 *   (`userPricesSchema`, stored in the settings). The model-free summarizers (extractive,
 *   the truncation fallback) cost 0 and are known.
 */
import { z } from 'zod';

export type Provider = 'anthropic' | 'openai';

/** Rates in USD per 1,000,000 tokens. */
export interface ModelRates {
  /** Uncached input (prompt) tokens. */
  input: number;
  /** Output (completion) tokens, reasoning tokens included. */
  output: number;
  /** Tokens written to the cache with a 5-minute lifetime (Anthropic: 1.25× input; OpenAI: no surcharge, = input). */
  cacheWrite5m: number;
  /** Tokens written to the cache with a 1-hour lifetime (Anthropic: 2× input; OpenAI: = input). */
  cacheWrite1h: number;
  /** Tokens read from the cache (Anthropic: 0.1× input; OpenAI: the model's cached-input rate). */
  cacheRead: number;
}

/** One row of the table: the rates, whose they are, when and where they were read. */
export interface ModelPrice extends ModelRates {
  provider: Provider;
  /** ISO date the figures were read (docs/cost.md says how). */
  asOf: string;
  /** The provider's pricing page. */
  source: string;
}

export const ANTHROPIC_PRICING_URL = 'https://docs.anthropic.com/en/docs/about-claude/pricing';
export const OPENAI_PRICING_URL = 'https://platform.openai.com/docs/pricing';
/** Anthropic's published prompt-caching multipliers of the base input rate. */
export const ANTHROPIC_CACHE_MULTIPLIERS = { write5m: 1.25, write1h: 2, read: 0.1 } as const;

const READ_ON = '2026-11-30';

/** An Anthropic row: cache rates from the published multipliers. */
function anthropic(input: number, output: number): ModelPrice {
  const m = ANTHROPIC_CACHE_MULTIPLIERS;
  return { provider: 'anthropic', input, output, cacheWrite5m: input * m.write5m, cacheWrite1h: input * m.write1h, cacheRead: input * m.read, asOf: READ_ON, source: ANTHROPIC_PRICING_URL };
}

/** An OpenAI row: no write surcharge; `cachedInput` is the published cached-input rate (= input when the model has none). */
function openai(input: number, cachedInput: number, output: number): ModelPrice {
  return { provider: 'openai', input, output, cacheWrite5m: input, cacheWrite1h: input, cacheRead: cachedInput, asOf: READ_ON, source: OPENAI_PRICING_URL };
}

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic (model ids as the API and Claude Code transcripts spell them; a dated id
  // such as claude-sonnet-4-5-20250929 takes its undated row).
  'claude-opus-4-7': anthropic(5, 25),
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-3-opus': anthropic(15, 75),
  'claude-sonnet-4-6': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  // OpenAI: input, cached input, output.
  'gpt-4o': openai(2.5, 1.25, 10),
  'gpt-4o-2024-05-13': openai(5, 5, 15),
  'gpt-4o-mini': openai(0.15, 0.075, 0.6),
  'gpt-4.1': openai(2, 0.5, 8),
  'gpt-4.1-mini': openai(0.4, 0.1, 1.6),
  'gpt-4.1-nano': openai(0.1, 0.025, 0.4),
  'gpt-5': openai(1.25, 0.125, 10),
  'gpt-5-mini': openai(0.25, 0.025, 2),
  'gpt-5-nano': openai(0.05, 0.005, 0.4),
  o1: openai(15, 7.5, 60),
  'o1-mini': openai(1.1, 0.55, 4.4),
  o3: openai(2, 0.5, 8),
  'o3-mini': openai(1.1, 0.55, 4.4),
  'o4-mini': openai(1.1, 0.275, 4.4),
  'gpt-4-turbo': openai(10, 10, 30),
  'gpt-3.5-turbo': openai(0.5, 0.5, 1.5),
};

/** Summarizers that call no model: free, and known to be. */
export const MODEL_FREE = new Set(['extractive', 'truncation']);

const rate = z.number().finite().nonnegative();
/**
 * A price the user sets for a model (settings): input and output required; cache rates
 * optional. Missing cache rates follow `provider`: 'anthropic' derives them from the
 * published multipliers, anything else (OpenAI, a local server) charges cache traffic at
 * the input rate (no discount assumed).
 */
export const userModelPriceSchema = z
  .object({
    input: rate,
    output: rate,
    cacheWrite5m: rate.optional(),
    cacheWrite1h: rate.optional(),
    cacheRead: rate.optional(),
    provider: z.enum(['anthropic', 'openai']).optional(),
  })
  .strict();
/** User prices by model name (matched like the table: exact, or the name plus a date suffix). */
export const userPricesSchema = z.record(z.string().trim().min(1).max(200), userModelPriceSchema);
export type UserModelPrice = z.infer<typeof userModelPriceSchema>;
export type UserPrices = z.infer<typeof userPricesSchema>;

/** What `priceOf` found for a model name. */
export interface ResolvedPrice extends ModelRates {
  /** The name asked for. */
  model: string;
  /** False when neither the table nor the user lists it: every rate is then 0. */
  known: boolean;
  /** Where the rates come from. */
  from: 'table' | 'user' | 'model-free' | 'unlisted';
  /** The table or user key that matched, else null. */
  matched: string | null;
  /** Whose caching rules apply; null when unknown (model-free, unlisted, a user price without one). */
  provider: Provider | null;
  asOf: string | null;
  source: string | null;
}

const ZERO_RATES: ModelRates = { input: 0, output: 0, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0 };
/** What may follow a listed name: a snapshot date (-20250929, -2024-07-18, @20241022), optionally a Bedrock-style version, or -latest. */
const SNAPSHOT_SUFFIX = /^(?:[-@](?:\d{8}|\d{4}-\d{2}-\d{2})(?:-v\d+(?::\d+)?)?|-latest)$/;
/** Gateway prefixes that name the provider in front of its own model id (OpenRouter, LiteLLM). */
const PROVIDER_PREFIX = /^(?:anthropic|openai)\//;

/**
 * The key of `names` that `model` denotes: the name itself, else the longest key that
 * `model` extends by a snapshot suffix only. A bare prefix does not match (claude-opus-4
 * must not price claude-opus-4-8, which may cost something else): an unlisted model is
 * reported unknown, not guessed.
 */
export function matchModelName(model: string, names: Iterable<string>): string | null {
  const m = model.trim().toLowerCase().replace(PROVIDER_PREFIX, '');
  let best: string | null = null;
  for (const name of names) {
    const n = name.toLowerCase();
    if (m === n) return name;
    if (m.startsWith(n) && SNAPSHOT_SUFFIX.test(m.slice(n.length)) && (best === null || n.length > best.length)) best = name;
  }
  return best;
}

function fromUser(p: UserModelPrice, listedProvider: Provider | null): ModelRates & { provider: Provider | null } {
  const m = ANTHROPIC_CACHE_MULTIPLIERS;
  // A user's price for a model the table knows keeps the table's provider (its caching rules) unless it names one.
  const provider = p.provider ?? listedProvider;
  const derive = provider === 'anthropic';
  return {
    input: p.input,
    output: p.output,
    cacheWrite5m: p.cacheWrite5m ?? (derive ? p.input * m.write5m : p.input),
    cacheWrite1h: p.cacheWrite1h ?? (derive ? p.input * m.write1h : p.input),
    cacheRead: p.cacheRead ?? (derive ? p.input * m.read : p.input),
    provider,
  };
}

/** The rates of `model`: the user's price first, then the table, then the model-free set; else all 0 with `known: false`. */
export function priceOf(model: string, userPrices: UserPrices = {}): ResolvedPrice {
  const user = matchModelName(model, Object.keys(userPrices));
  const listed = matchModelName(model, Object.keys(MODEL_PRICES));
  if (user !== null) return { model, known: true, from: 'user', matched: user, asOf: null, source: null, ...fromUser(userPrices[user], listed !== null ? MODEL_PRICES[listed].provider : null) };
  if (listed !== null) {
    const { provider, asOf, source, ...rates } = MODEL_PRICES[listed];
    return { model, known: true, from: 'table', matched: listed, provider, asOf, source, ...rates };
  }
  const free = MODEL_FREE.has(model);
  return { model, known: free, from: free ? 'model-free' : 'unlisted', matched: free ? model : null, provider: null, asOf: null, source: null, ...ZERO_RATES };
}

/** USD for a call without caching: tokens in at the input rate + tokens out at the output rate (0 for an unlisted model). */
export function costUsd(model: string, tokensIn: number, tokensOut: number, userPrices?: UserPrices): number {
  const p = priceOf(model, userPrices);
  return (tokensIn * p.input + tokensOut * p.output) / 1_000_000;
}
