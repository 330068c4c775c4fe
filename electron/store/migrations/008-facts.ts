/**
 * Migration 8: the loss ledger. One row per summary, written when the
 * summary is inserted (electron/engine/summary-ledger.ts): the facts of the span it
 * covers (a FactSet as JSON, shared/facts), the facts the summarizer says it carries
 * (nullable: the extractive summarizer fills it), and the ledger (retention per
 * category and the top lost/kept facts: the contract's SummaryLedger). Adds a table; no
 * existing row is rewritten (summaries written before it simply have no ledger).
 */
export const migration008 = {
  version: 8,
  name: 'facts',
  sql: /* sql */ `
CREATE TABLE summary_facts (
  summary_id INTEGER PRIMARY KEY REFERENCES summaries(id),
  span_facts TEXT NOT NULL,
  own_facts TEXT,
  ledger TEXT NOT NULL
) STRICT;
`,
};
