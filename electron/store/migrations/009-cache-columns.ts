/**
 * Migration 9: the summary cache row as the watermark design lists it: the prompt version
 * that produced the text, the number of items (turns or child summaries) in the span it
 * summarizes, and how often it was served from the cache (`use_count`, beside the LRU
 * counter `last_used`). Adds columns; rows written before it have prompt_version NULL and
 * span_count NULL (unknown), use_count 0.
 */
export const migration009 = {
  version: 9,
  name: 'cache-columns',
  sql: /* sql */ `
ALTER TABLE summary_cache ADD COLUMN prompt_version TEXT;
ALTER TABLE summary_cache ADD COLUMN span_count INTEGER;
ALTER TABLE summary_cache ADD COLUMN use_count INTEGER NOT NULL DEFAULT 0;
`,
};
