/**
 * Migration 14: `summary_facts.span_facts` may be NULL — "not kept". A replay's summaries
 * (live replay) keep their ledger and their own facts but not the facts of their span: those
 * are read only by a later condensation of the same summary (electron/engine/summary-ledger.ts),
 * and a replay condenses its summaries from memory while it runs; no pass ever condenses
 * a replay's summary. A rolling replay re-summarizes the whole history at each firing, so
 * storing each summary's span facts wrote every fact so far again per summary (~200 MB of
 * JSON for a 100,000-turn session). SQLite cannot drop a NOT NULL constraint, so the table
 * is rebuilt with the same rows.
 */
export const migration014 = {
  version: 14,
  name: 'span-facts-optional',
  sql: /* sql */ `
ALTER TABLE summary_facts RENAME TO summary_facts_013;
CREATE TABLE summary_facts (
  summary_id INTEGER PRIMARY KEY REFERENCES summaries(id),
  span_facts TEXT,
  own_facts TEXT,
  ledger TEXT NOT NULL
) STRICT;
INSERT INTO summary_facts(summary_id, span_facts, own_facts, ledger) SELECT summary_id, span_facts, own_facts, ledger FROM summary_facts_013;
DROP TABLE summary_facts_013;
`,
};
