/**
 * The summary cache (table summary_cache, migration 002). Key = sha256 of the canonical
 * span content WITHOUT ids or timestamps, the summarizer's model identity, the prompt
 * version (for the openai kind it hashes the template texts in effect, so an edited
 * template never hits a summary the default made), the max tokens and the tier. Re-running an unchanged variant, a two-line
 * retry after an abandoned commit, or a new variant that cuts the same span therefore
 * makes no summarizer call.
 *
 * The rows (LRU-bounded) are read and written by electron/store/summary-cache.ts. They
 * live outside the pass's commit transaction on purpose: a cancelled run leaves no
 * summaries, but what it already paid a model for is kept for the retry.
 */
import crypto from 'node:crypto';
import type { SummarizeRequest } from '../../shared/strategies/summarizer.js';
import type { SummaryTier } from '../../shared/strategies/types.js';
import { stableJson } from '../../shared/model/turn.js';

export interface CacheKeyInput {
  request: Omit<SummarizeRequest, 'tier'>;
  /** Summarizer identity: kind, model and the endpoint's origin ("openai:gpt-4o-mini@https://api.openai.com", "extractive:extractive"; tiers.ts summarizerIdentity). */
  model: string;
  promptVersion: string;
  tier: SummaryTier;
}

/**
 * sha256 of the span content alone (purpose, prior summary, items): computed once per
 * request and shared by the keys of every tier. Items are hashed one by one (plain
 * strings, no key order to canonicalize), so a 20,000-token span is never copied into
 * one big JSON string just to be hashed.
 */
export function spanDigest(request: CacheKeyInput['request']): string {
  const hash = crypto.createHash('sha256');
  // The depth a condensation makes picks its prompt (depth 1 vs ≥ 2); absent for other purposes,
  // so their keys are what they were. Child labels (positions, times) stay out, like turn ids.
  hash.update(stableJson({ purpose: request.purpose, prior: request.priorSummary ?? null, ...(request.depth !== undefined ? { depth: request.depth } : {}) }));
  for (const i of request.items) hash.update(`\n${JSON.stringify([i.kind, i.role, i.text])}`);
  return hash.digest('hex');
}

/**
 * The cache key. Items contribute only role, kind and text: the same content imported
 * again (new turn ids, other timestamps) hits the same entry.
 */
export function summaryCacheKey(k: CacheKeyInput & { digest?: string }): string {
  const digest = k.digest ?? spanDigest(k.request);
  return crypto
    .createHash('sha256')
    .update(stableJson({ span: digest, model: k.model, promptVersion: k.promptVersion, maxTokens: k.request.targetTokens, tier: k.tier }))
    .digest('hex');
}
