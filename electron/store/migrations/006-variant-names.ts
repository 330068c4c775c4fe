/**
 * Migration 6: variants the user owns. A variant is now created only by a
 * run (Compact, Replay) or an explicit save, never by moving a slider; before this, every
 * slider value held for 220 ms became an empty variant. Adds an editable `name` and
 * removes those empty rows: a variant with no run and no summary (pass or replay) owns
 * nothing, so deleting its row loses no data. No summary, run or turn is touched.
 * (005 is taken by the facts migration of the loss ledger.)
 */
export const migration006 = {
  version: 6,
  name: 'variant-names',
  sql: /* sql */ `
ALTER TABLE variants ADD COLUMN name TEXT;
DELETE FROM variants
 WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.variant_id = variants.id)
   AND NOT EXISTS (SELECT 1 FROM summaries s WHERE s.variant_id = variants.id);
`,
};
