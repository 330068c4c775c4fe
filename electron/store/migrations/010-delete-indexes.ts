/**
 * Migration 10: indexes on the columns that reference turns and runs without one, so that
 * deleting a turn (or a run) checks its foreign keys through an index instead of scanning
 * every model call and summary edge of every session: without them deleting a
 * 100,000-turn session was quadratic (each turn's FK check read the whole `model_calls`
 * and `summary_sources` tables). Batched deletes: electron/store/session-deletion.ts.
 * Adds indexes only; no row is touched.
 */
export const migration010 = {
  version: 10,
  name: 'delete-indexes',
  sql: /* sql */ `
CREATE INDEX model_calls_turn ON model_calls(turn_id);
CREATE INDEX summary_sources_turn ON summary_sources(turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX summaries_run ON summaries(run_id) WHERE run_id IS NOT NULL;
`,
};
