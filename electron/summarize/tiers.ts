/**
 * The tier ladder a summary goes through (the fallback ladder, when the variant's settings
 * say so: `ladder`, its strategy's default):
 *   normal -> aggressive (half the target, lower temperature) when the output is not
 *   shorter than the input, is empty or the source verbatim, or the call fails
 *   -> fallback (the deterministic extractive summary, bounded).
 * Without the ladder one call at the normal tier is made, its output is taken unless it is
 * empty, and an empty output or a failed call is an error (SummarizerFailure), as the rolling
 * design wants.
 * The tier that produced the text is recorded on the summary. Each rung is looked up in
 * the summary cache before any call, so a re-run over unchanged content makes zero calls
 * whatever rung it ended on last time.
 * The tier that produced the text is recorded on the summary. Each model rung is looked up
 * in the summary cache before any call, so a re-run over unchanged content that a model
 * summarized makes zero calls. The cache's identity of a summarizer is its kind, its model and
 * its endpoint's origin (the same model name at another server is another model), and a
 * fallback is keyed as one (tier 'fallback'): it is never served in place of a model's
 * summary. A re-run after an outage asks the model again; the cached fallback is reused only
 * once the model rungs have failed again.
 */
import { costUsd as priceCall, type UserPrices } from '../../shared/cost/prices.js';
import { redactHeldSecrets, redactSecrets } from '../held-secrets.js';
import type { DB } from '../store/db.js';
import type { SummarizeRequest, Summarizer, SummarizeResult } from '../../shared/strategies/summarizer.js';
import type { SummaryTier } from '../../shared/strategies/types.js';
import type { TieredSummary } from '../../shared/passes/context.js';
import { extractiveSummarize, EXTRACTIVE_MODEL, EXTRACTIVE_PROMPT_VERSION } from '../../shared/summarize/extractive.js';
import { itemsToSourceText } from '../../shared/model/items.js';
import { isJsWhiteSpace } from '../../shared/facts/patterns.js';
import { spanDigest, summaryCacheKey } from './cache.js';
import { cacheGet, cachePut, DEFAULT_CACHE_LIMIT } from '../store/summary-cache.js';

/** A counting semaphore: at most `limit` summarizer calls in flight for one pass. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`concurrency must be a whole number >= 1, got ${limit}`);
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(abortError(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private release(): void {
    this.active--;
    const next = this.waiting.shift();
    if (next) next();
  }
}

export class AbortError extends Error {
  constructor(message = 'the run was cancelled') {
    super(message);
    this.name = 'AbortError';
  }
}

export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error && signal.reason.name === 'AbortError' ? signal.reason : new AbortError();
}

/** Thrown when every model tier failed and the caller asked for no fallback (watermark truncation). */
export class SummarizerFailure extends Error {
  constructor(message: string, readonly attempts: Array<{ tier: SummaryTier; error: string }>) {
    super(message);
    this.name = 'SummarizerFailure';
  }
}

const normalize = (s: string) => s.replace(/\s+/g, ' ').trim();

/** normalize(s).length, by one scan (no copy of the source): whitespace runs between other characters count one. */
export function normalizedLength(s: string): number {
  let n = 0;
  let started = false;
  let gap = false;
  for (let i = 0; i < s.length; i++) {
    if (isJsWhiteSpace(s.charCodeAt(i))) {
      gap = started;
      continue;
    }
    if (gap) n++;
    gap = false;
    started = true;
    n++;
  }
  return n;
}

/**
 * Why a model output is unusable, or null when it is fine. Not shorter than the input
 * (by real tokens) covers echoes of the whole prompt; "verbatim" also rejects an output
 * that copies at least half of the source.
 */
export function rejectOutput(output: string, source: string, countTokens: (s: string) => number): string | null {
  const out = normalize(output);
  if (out.length === 0) return 'empty output';
  // The source's normalized text only when the output may be it or half of it: a summary is
  // much shorter than its span, which is then only measured (a rolling replay's spans add up to
  // the whole session, copied once more each).
  const srcLength = normalizedLength(source);
  if (out.length * 2 >= srcLength) {
    const src = normalize(source);
    if (out === src || src.includes(out)) return 'output is the source text verbatim';
  }
  // Fast path: a third of the characters is fewer tokens for any same-language text; it
  // spares re-tokenizing a 20,000-token span for every summary of a large pass.
  if (out.length * 3 < srcLength) return null;
  if (countTokens(output) >= countTokens(source)) return 'output is not shorter than the input';
  return null;
}

export interface TierOptions {
  db: DB;
  summarizer: Summarizer;
  request: Omit<SummarizeRequest, 'tier'>;
  countTokens(text: string): number;
  semaphore: Semaphore;
  signal: AbortSignal;
  cacheLimit?: number;
  /** false: throw SummarizerFailure instead of using the extractive fallback. */
  allowFallback?: boolean;
  /** false: no ladder at all, only the normal tier (its failure throws SummarizerFailure). Default true. */
  ladder?: boolean;
  /** The user's prices: a summarizer that reports no cost is priced from the one table with them. */
  userPrices?: UserPrices;
  /** Called once per attempted model call (for run events / stats). */
  onAttempt?(tier: 'normal' | 'aggressive', outcome: { ok: boolean; reason?: string; latencyMs: number }): void;
}

/** The aggressive rung's target: half the normal one (at least 32 tokens). */
export function aggressiveTarget(targetTokens: number): number {
  return Math.max(32, Math.floor(targetTokens / 2));
}

/**
 * The summarizer as the cache knows it: `kind:model`, and `@origin` of its endpoint when it
 * has one (an OpenAI-compatible server): a summary made by one server is not another's.
 */
export function summarizerIdentity(summarizer: Summarizer): string {
  const baseURL = (summarizer as { baseURL?: unknown }).baseURL;
  let origin: string | null = null;
  if (typeof baseURL === 'string') {
    try {
      origin = new URL(baseURL).origin;
    } catch {
      origin = baseURL;
    }
  }
  return `${summarizer.kind}:${summarizer.model}${origin === null ? '' : `@${origin}`}`;
}

/** Summarize through cache and ladder. Never returns empty text or the source verbatim. */
export async function summarizeWithTiers(o: TierOptions): Promise<TieredSummary> {
  const identity = summarizerIdentity(o.summarizer);
  const digest = spanDigest(o.request);
  const keyOf = (tier: SummaryTier) => summaryCacheKey({ request: o.request, digest, model: identity, promptVersion: o.summarizer.promptVersion, tier });
  const source = itemsToSourceText(o.request.items);
  const started = Date.now();

  const ladder = o.ladder !== false;
  const allowFallback = ladder && o.allowFallback !== false;
  const modelTiers = ladder ? (['normal', 'aggressive'] as const) : (['normal'] as const);
  // Every model rung's cache entry first: zero calls when a model summarized this exact span before.
  for (const tier of modelTiers) {
    const key = keyOf(tier);
    const hit = cacheGet(o.db, key);
    if (hit) return { text: hit.text, tier: hit.tier, model: hit.model, tokenCount: hit.tokenCount, cacheKey: key, cacheHit: true, calls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0, latencyMs: Date.now() - started, ...(hit.facts ? { facts: hit.facts } : {}) };
  }

  let calls = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  let costUsd = 0;
  const attempts: Array<{ tier: SummaryTier; error: string }> = [];
  for (const tier of modelTiers) {
    if (o.signal.aborted) throw abortError(o.signal);
    const req: SummarizeRequest = { ...o.request, tier, targetTokens: tier === 'aggressive' ? aggressiveTarget(o.request.targetTokens) : o.request.targetTokens };
    const callStart = Date.now();
    let result: SummarizeResult;
    try {
      calls++;
      result = await o.semaphore.run(() => o.summarizer.summarize(req, o.signal), o.signal);
    } catch (err) {
      if (o.signal.aborted) throw abortError(o.signal);
      // The endpoint's error body may echo the key: redacted and capped before it is stored or shown.
      const reason = redactSecrets(err instanceof Error ? err.message : String(err));
      attempts.push({ tier, error: reason });
      o.onAttempt?.(tier, { ok: false, reason, latencyMs: Date.now() - callStart });
      continue;
    }
    tokensIn += result.tokensIn ?? 0;
    tokensOut += result.tokensOut ?? 0;
    // A summarizer that does not price its calls is priced here, from the one table (unlisted models cost 0).
    costUsd += result.costUsd ?? priceCall(result.model || o.summarizer.model, result.tokensIn ?? 0, result.tokensOut ?? 0, o.userPrices);
    // Without the ladder only the designs' own rule holds: an empty summary is an error.
    const rejected = ladder ? rejectOutput(result.text ?? '', source, o.countTokens) : normalizedLength(result.text ?? '') === 0 ? 'empty output' : null;
    o.onAttempt?.(tier, { ok: rejected === null, reason: rejected ?? undefined, latencyMs: Date.now() - callStart });
    if (rejected) {
      attempts.push({ tier, error: rejected });
      continue;
    }
    // A model may echo its key too: the text is kept without it.
    const text = redactHeldSecrets(result.text.trim());
    const key = keyOf(tier);
    const tokenCount = o.countTokens(text);
    // Facts describe the text as returned: kept only when the text was not trimmed.
    const facts = result.facts && text === result.text ? result.facts : undefined;
    cachePut(o.db, key, { text, tokenCount, tier, model: result.model || o.summarizer.model, promptVersion: o.summarizer.promptVersion, spanCount: o.request.items.length, spanTokenCountIn: o.request.spanTokenCount, facts }, o.cacheLimit ?? DEFAULT_CACHE_LIMIT);
    return { text, tier, model: result.model || o.summarizer.model, tokenCount, cacheKey: key, cacheHit: false, calls, tokensIn, tokensOut, costUsd, latencyMs: Date.now() - started, facts };
  }

  if (!allowFallback) {
    throw new SummarizerFailure(`summarizer failed on every tier: ${attempts.map((a) => `${a.tier}: ${a.error}`).join('; ')}`, attempts);
  }
  // Fallback: deterministic and bounded; the extractive header guarantees it is neither empty nor verbatim.
  const key = keyOf('fallback');
  const cached = cacheGet(o.db, key);
  if (cached) return { text: cached.text, tier: 'fallback', model: cached.model, tokenCount: cached.tokenCount, cacheKey: key, cacheHit: true, calls, tokensIn, tokensOut, costUsd, latencyMs: Date.now() - started, ...(cached.facts ? { facts: cached.facts } : {}) };
  const { text, facts } = extractiveSummarize({ ...o.request, tier: 'aggressive' }, o.countTokens);
  const tokenCount = o.countTokens(text);
  cachePut(o.db, key, { text, tokenCount, tier: 'fallback', model: EXTRACTIVE_MODEL, promptVersion: EXTRACTIVE_PROMPT_VERSION, spanCount: o.request.items.length, spanTokenCountIn: o.request.spanTokenCount, facts }, o.cacheLimit ?? DEFAULT_CACHE_LIMIT);
  return { text, tier: 'fallback', model: EXTRACTIVE_MODEL, tokenCount, cacheKey: key, cacheHit: false, calls, tokensIn, tokensOut, costUsd, latencyMs: Date.now() - started, facts };
}
