/**
 * Migration 16: the rest of the summary cache row as the watermark design lists it.
 * - `span_token_count_in`: the tokens of the span the summary stands for, as the pass
 *   measured them (NULL when the writer did not say; every row written before).
 * - `last_read_at_ms`: when the row was last written or served, in ms since the epoch (the
 *   LRU keeps its counter `last_used`: two reads in one millisecond still order). Rows
 *   written before get their creation time.
 * - `use_count` now counts the write as the first use (it counted hits only): rows written
 *   before get one more.
 * Adds columns and fills them; every row stays.
 */
export const migration016 = {
  version: 16,
  name: 'cache-row-times',
  sql: /* sql */ `
ALTER TABLE summary_cache ADD COLUMN span_token_count_in INTEGER;
ALTER TABLE summary_cache ADD COLUMN last_read_at_ms INTEGER;
UPDATE summary_cache SET use_count = use_count + 1, last_read_at_ms = CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER);
`,
};
