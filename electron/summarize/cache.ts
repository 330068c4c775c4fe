/**
 * The summary cache (table summary_cache, migration 002). Key = sha256 of the canonical
 * span content WITHOUT ids or timestamps, the summarizer's model identity, the prompt
 * version, the max tokens and the tier. Re-running an unchanged variant, a two-line
 * retry after an abandoned commit, or a new variant that cuts the same span therefore
 * makes no summarizer call.
 *
 * LRU-bounded by a monotonically increasing `last_used` counter (no clock: two writes in
 * the same millisecond still order correctly). Cache rows live outside the pass's commit
 * transaction on purpose: a cancelled run leaves no summaries, but what it already paid
 * a model for is kept for the retry.
 */
import crypto from 'node:crypto';
import type { DB } from '../store/db.js';
import type { SummarizeRequest } from '../../shared/strategies/summarizer.js';
import type { SummaryTier } from '../../shared/strategies/types.js';
import { stableJson } from '../../shared/model/turn.js';

/** Default LRU bound (issue 3: "LRU-bounded (default 1000 rows)"). */
export const DEFAULT_CACHE_LIMIT = 1000;

export interface CacheKeyInput {
  request: Omit<SummarizeRequest, 'tier'>;
  /** Summarizer identity: kind and model ("openai:gpt-4o-mini", "extractive:extractive"). */
  model: string;
  promptVersion: string;
  tier: SummaryTier;
}

/**
 * The cache key. Items contribute only role, kind and text: the same content imported
 * again (new turn ids, other timestamps) hits the same entry.
 */
/**
 * sha256 of the span content alone (purpose, prior summary, items): computed once per
 * request and shared by the keys of every tier. Items are hashed one by one (plain
 * strings, no key order to canonicalize), so a 20,000-token span is never copied into
 * one big JSON string just to be hashed.
 */
export function spanDigest(request: CacheKeyInput['request']): string {
  const hash = crypto.createHash('sha256');
  hash.update(stableJson({ purpose: request.purpose, prior: request.priorSummary ?? null }));
  for (const i of request.items) hash.update(`\n${JSON.stringify([i.kind, i.role, i.text])}`);
  return hash.digest('hex');
}

export function summaryCacheKey(k: CacheKeyInput & { digest?: string }): string {
  const digest = k.digest ?? spanDigest(k.request);
  return crypto
    .createHash('sha256')
    .update(stableJson({ span: digest, model: k.model, promptVersion: k.promptVersion, maxTokens: k.request.targetTokens, tier: k.tier }))
    .digest('hex');
}

export interface CachedSummary {
  text: string;
  tokenCount: number;
  tier: SummaryTier;
  model: string;
}

function nextUse(db: DB): number {
  const row = db.prepare('SELECT COALESCE(MAX(last_used), 0) + 1 AS n FROM summary_cache').get() as { n: number };
  return row.n;
}

/** Reads an entry and marks it most recently used. */
export function cacheGet(db: DB, key: string): CachedSummary | null {
  const row = db.prepare('SELECT text, token_count, tier, model FROM summary_cache WHERE cache_key = ?').get(key) as
    | { text: string; token_count: number; tier: SummaryTier; model: string }
    | undefined;
  if (!row) return null;
  db.prepare('UPDATE summary_cache SET last_used = ? WHERE cache_key = ?').run(nextUse(db), key);
  return { text: row.text, tokenCount: row.token_count, tier: row.tier, model: row.model };
}

/** Writes (or refreshes) an entry, then evicts the least recently used rows beyond `limit`. */
export function cachePut(db: DB, key: string, entry: CachedSummary, limit: number = DEFAULT_CACHE_LIMIT): void {
  db.transaction(() => {
    db.prepare(
      `INSERT INTO summary_cache(cache_key, text, token_count, tier, model, created_at, last_used) VALUES (?,?,?,?,?,?,?)
       ON CONFLICT(cache_key) DO UPDATE SET text = excluded.text, token_count = excluded.token_count, tier = excluded.tier, model = excluded.model, last_used = excluded.last_used`,
    ).run(key, entry.text, entry.tokenCount, entry.tier, entry.model, new Date().toISOString(), nextUse(db));
    const { n } = db.prepare('SELECT COUNT(*) AS n FROM summary_cache').get() as { n: number };
    if (n > limit) {
      db.prepare('DELETE FROM summary_cache WHERE cache_key IN (SELECT cache_key FROM summary_cache ORDER BY last_used ASC LIMIT ?)').run(n - limit);
    }
  })();
}

export function cacheSize(db: DB): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM summary_cache').get() as { n: number }).n;
}
