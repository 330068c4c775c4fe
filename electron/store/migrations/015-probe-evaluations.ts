/**
 * Migration 15: `probe_evaluations` — probe evaluation of a compaction (electron/engine/
 * evaluate.ts): the questions built for the span a compaction replaced, each asked of a model
 * with the compacted context and graded 0–5 by a judge (`mode` 'judge'), or graded offline by
 * the presence of its answer's strings in that context (`mode` 'text', the weaker check). One
 * row per evaluated subject: a variant (`variant_id`), or the source tool's own compaction, the
 * baseline (`subject` 'source', `variant_id` the variant it was evaluated beside). `results`:
 * the probes as JSON (question, reference answer, the model's answer, grade or null when
 * ungraded). `prompt_version`: shared/probes/prompts.ts PROBE_PROMPT_VERSION.
 */
export const migration015 = {
  version: 15,
  name: 'probe-evaluations',
  sql: /* sql */ `
CREATE TABLE probe_evaluations (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  variant_id INTEGER NOT NULL REFERENCES variants(id),
  subject TEXT NOT NULL CHECK (subject IN ('variant', 'source')),
  at_call INTEGER,
  first_position INTEGER NOT NULL,
  last_position INTEGER NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('judge', 'text')),
  prompt_version TEXT NOT NULL,
  answer_model TEXT,
  judge_model TEXT,
  base_url TEXT,
  probes INTEGER NOT NULL,
  graded INTEGER NOT NULL,
  score_sum INTEGER NOT NULL,
  results TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX probe_evaluations_variant ON probe_evaluations(variant_id, id);
CREATE INDEX probe_evaluations_session ON probe_evaluations(session_id);
`,
};
