/**
 * Migration 11: sweeps over a corpus (docs/sweeps.md). A sweep is one grid of parameter points
 * of one strategy crossed with a list of sessions (`sweep` CLI, electron/engine/sweep.ts);
 * each (session, point) pair is a `sweep_points` row naming the variant it resolved to and
 * the run whose figures the sweep reports. Stored so the window can draw a sweep after the
 * CLI ran it, and so shard databases merge into one sweep (electron/store/merge.ts: sweeps
 * by `sweep_key`, points by (sweep, pair_index)).
 *
 * - `sweep_key`: a hash of what the sweep is (strategy, grid, fixed parameters, summarizer,
 *   kind, the sessions' content hashes), so running the same sweep again, or one shard of
 *   it, finds the same row on every machine.
 * - `sessions`: `{"sessionIds":[…]}` in sweep order (a key merge remaps).
 * - `pair_index`: the pair's place in the sweep's deterministic order (session-major, then
 *   the grid's cartesian product, last key fastest); `shard i/n` takes pair_index ≡ i-1 (mod n).
 * Adds tables; no existing row is rewritten.
 */
export const migration011 = {
  version: 11,
  name: 'sweeps',
  sql: /* sql */ `
CREATE TABLE sweeps (
  id INTEGER PRIMARY KEY,
  sweep_key TEXT NOT NULL UNIQUE,
  strategy TEXT NOT NULL,
  grid TEXT NOT NULL,
  fixed_params TEXT NOT NULL DEFAULT '{}',
  summarizer TEXT NOT NULL DEFAULT '{}',
  sessions TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('pass', 'replay')),
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE sweep_points (
  id INTEGER PRIMARY KEY,
  sweep_id INTEGER NOT NULL REFERENCES sweeps(id),
  pair_index INTEGER NOT NULL,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  variant_id INTEGER NOT NULL REFERENCES variants(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),
  params TEXT NOT NULL,
  UNIQUE (sweep_id, pair_index)
) STRICT;
CREATE INDEX sweep_points_session ON sweep_points(session_id);
CREATE INDEX sweep_points_variant ON sweep_points(variant_id);
`,
};
