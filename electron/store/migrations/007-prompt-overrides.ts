/**
 * Migration 7: a variant's edited prompt templates (shared/summarize/prompts.ts), stored with
 * it as JSON `{ "<template id>": "<text>" }` ('{}' = the default templates). The text's hash
 * is already in `prompt_version` (and so in `variant_key`); the column keeps the text itself
 * so the window can show it and the exports carry it. (005 and 006 are other branches'.)
 * Adds a column; no existing row is rewritten.
 */
export const migration007 = {
  version: 7,
  name: 'prompt-overrides',
  sql: /* sql */ `
ALTER TABLE variants ADD COLUMN prompt_overrides TEXT NOT NULL DEFAULT '{}';
`,
};
