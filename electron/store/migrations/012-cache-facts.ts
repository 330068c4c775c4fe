/**
 * Migration 12: the facts the summarizer returned beside a cached text (a FactSet as JSON,
 * shared/facts), so a cache hit brings them back whole (mention counts, actions, outcomes)
 * instead of reading them back from the text. NULL for rows written before, and for
 * summarizers that return none (a model summary).
 */
export const migration012 = {
  version: 12,
  name: 'cache-facts',
  sql: /* sql */ `
ALTER TABLE summary_cache ADD COLUMN facts TEXT;
`,
};
