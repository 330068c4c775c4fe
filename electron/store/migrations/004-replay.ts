/**
 * Migration 4: live replays (electron/engine/replay.ts). A run has a kind: 'pass' (a
 * compaction of the variant: Compact, `compact`) or 'replay' (the session walked call by
 * call). Summaries a replay makes belong to that replay run (`replay_run_id`), with the
 * model call at which each was made and the call at which it was folded; they never mix
 * with the variant's own summaries. A replay's timeline (per-call columns, firings,
 * totals, baselines: the contract's ReplayTimeline) is stored whole as JSON: it is
 * written once and read whole by the window, the CLI and the exports.
 * Adds columns and a table; no existing row is rewritten.
 */
export const migration004 = {
  version: 4,
  name: 'replay',
  sql: /* sql */ `
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'pass' CHECK (kind IN ('pass', 'replay'));
ALTER TABLE summaries ADD COLUMN replay_run_id INTEGER REFERENCES runs(id);
ALTER TABLE summaries ADD COLUMN call_index INTEGER;
ALTER TABLE summaries ADD COLUMN compacted_at_call INTEGER;
CREATE INDEX summaries_replay ON summaries(replay_run_id) WHERE replay_run_id IS NOT NULL;

CREATE TABLE replay_timelines (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id),
  timeline TEXT NOT NULL
) STRICT;
`,
};
