/**
 * Data access for the summary cache (table summary_cache, migration 002): what the
 * summarizer already produced, keyed by `summaryCacheKey` (electron/summarize/cache.ts).
 *
 * LRU-bounded by a monotonically increasing `last_used` counter (no clock: two writes in
 * the same millisecond still order correctly). Beside it the design's bookkeeping: the
 * time of the last write or hit (`last_read_at_ms`, ms since the epoch) and `use_count`,
 * 1 at the write and one more per hit (migration 15).
 */
import { redactHeldSecrets } from '../held-secrets.js';
import { writeTransaction, type DB } from './db.js';
import type { SummaryTier } from '../../shared/strategies/types.js';
import type { FactSet } from '../../shared/facts/index.js';

/** Default LRU bound: 1000 rows, the bound the summary cache was specified with. */
export const DEFAULT_CACHE_LIMIT = 1000;

export interface CachedSummary {
  text: string;
  tokenCount: number;
  tier: SummaryTier;
  model: string;
  /** The prompt version that produced it (migration 9; null on older rows). */
  promptVersion?: string | null;
  /** Items (turns or child summaries) in the span it summarizes. */
  spanCount?: number | null;
  /** The facts the summarizer returned with the text (migration 12), when it returned any. */
  facts?: FactSet | null;
  /** Tokens of the span it summarizes, as the pass measured them (migration 15); null when not given. */
  spanTokenCountIn?: number | null;
}

/** A cache row with its bookkeeping (the watermark design's cache row). */
export interface CacheRow extends CachedSummary {
  key: string;
  /** Times it was used: 1 for the write, plus one per hit. */
  useCount: number;
  /** When it was last written or served, ms since the epoch. */
  lastReadAtMs: number | null;
}

function nextUse(db: DB): number {
  const row = db.prepare('SELECT COALESCE(MAX(last_used), 0) + 1 AS n FROM summary_cache').get() as { n: number };
  return row.n;
}

/** Reads an entry and marks it most recently used. */
export function cacheGet(db: DB, key: string): CachedSummary | null {
  const row = db.prepare('SELECT text, token_count, tier, model, facts FROM summary_cache WHERE cache_key = ?').get(key) as
    | { text: string; token_count: number; tier: SummaryTier; model: string; facts: string | null }
    | undefined;
  if (!row) return null;
  db.prepare('UPDATE summary_cache SET last_used = ?, use_count = use_count + 1, last_read_at_ms = ? WHERE cache_key = ?').run(nextUse(db), Date.now(), key);
  return { text: row.text, tokenCount: row.token_count, tier: row.tier, model: row.model, facts: row.facts ? (JSON.parse(row.facts) as FactSet) : null };
}

/** Writes (or refreshes) an entry, then evicts the least recently used rows beyond `limit`. */
export function cachePut(db: DB, key: string, entry: CachedSummary, limit: number = DEFAULT_CACHE_LIMIT): void {
  const now = Date.now();
  writeTransaction(db, () => {
    db.prepare(
      `INSERT INTO summary_cache(cache_key, text, token_count, tier, model, created_at, last_used, prompt_version, span_count, facts, span_token_count_in, last_read_at_ms, use_count) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,1)
       ON CONFLICT(cache_key) DO UPDATE SET text = excluded.text, token_count = excluded.token_count, tier = excluded.tier, model = excluded.model, last_used = excluded.last_used,
         prompt_version = excluded.prompt_version, span_count = excluded.span_count, facts = excluded.facts, span_token_count_in = excluded.span_token_count_in,
         last_read_at_ms = excluded.last_read_at_ms, use_count = use_count + 1`,
    ).run(key, redactHeldSecrets(entry.text), entry.tokenCount, entry.tier, entry.model, new Date(now).toISOString(), nextUse(db), entry.promptVersion ?? null, entry.spanCount ?? null, entry.facts ? JSON.stringify(entry.facts) : null, entry.spanTokenCountIn ?? null, now);
    const { n } = db.prepare('SELECT COUNT(*) AS n FROM summary_cache').get() as { n: number };
    if (n > limit) {
      db.prepare('DELETE FROM summary_cache WHERE cache_key IN (SELECT cache_key FROM summary_cache ORDER BY last_used ASC LIMIT ?)').run(n - limit);
    }
  });
}

export function cacheSize(db: DB): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM summary_cache').get() as { n: number }).n;
}

/** One row with its bookkeeping, or null (tests, the CLI). */
export function cacheRow(db: DB, key: string): CacheRow | null {
  const r = db.prepare('SELECT cache_key, text, token_count, tier, model, prompt_version, span_count, use_count, span_token_count_in, last_read_at_ms FROM summary_cache WHERE cache_key = ?').get(key) as
    | { cache_key: string; text: string; token_count: number; tier: SummaryTier; model: string; prompt_version: string | null; span_count: number | null; use_count: number; span_token_count_in: number | null; last_read_at_ms: number | null }
    | undefined;
  return r
    ? { key: r.cache_key, text: r.text, tokenCount: r.token_count, tier: r.tier, model: r.model, promptVersion: r.prompt_version, spanCount: r.span_count, useCount: r.use_count, spanTokenCountIn: r.span_token_count_in, lastReadAtMs: r.last_read_at_ms }
    : null;
}
