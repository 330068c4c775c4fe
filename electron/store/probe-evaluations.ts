/**
 * Rows of `probe_evaluations` (migration 015): one probe evaluation of one subject (a variant,
 * or the source tool's own compaction beside it). Plain data access; the evaluation is run
 * by electron/engine/evaluate.ts.
 */
import type { DB } from './db.js';
import type { ProbeEvaluation, ProbeEvaluationSummary, ProbeResult } from '../../shared/probes/types.js';

export function insertProbeEvaluation(db: DB, e: Omit<ProbeEvaluation, 'id' | 'createdAt'>): ProbeEvaluation {
  const createdAt = new Date().toISOString();
  const graded = e.results.filter((r) => r.score !== null);
  const id = db
    .prepare(
      `INSERT INTO probe_evaluations(session_id, variant_id, subject, at_call, first_position, last_position, mode, prompt_version, answer_model, judge_model, base_url, probes, graded, score_sum, results, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(e.sessionId, e.variantId, e.subject, e.atCall, e.firstPosition, e.lastPosition, e.mode, e.promptVersion, e.answerModel, e.judgeModel, e.baseUrl, e.results.length, graded.length, graded.reduce((n, r) => n + r.score!, 0), JSON.stringify(e.results), createdAt).lastInsertRowid;
  return { ...e, id: Number(id), createdAt };
}

interface Row {
  id: number;
  session_id: number;
  variant_id: number;
  subject: 'variant' | 'source';
  at_call: number | null;
  first_position: number;
  last_position: number;
  mode: 'judge' | 'text';
  prompt_version: string;
  answer_model: string | null;
  judge_model: string | null;
  base_url: string | null;
  probes: number;
  graded: number;
  score_sum: number;
  results: string;
  created_at: string;
}

const fromRow = (r: Row): ProbeEvaluation => ({
  id: r.id,
  sessionId: r.session_id,
  variantId: r.variant_id,
  subject: r.subject,
  atCall: r.at_call,
  firstPosition: r.first_position,
  lastPosition: r.last_position,
  mode: r.mode,
  promptVersion: r.prompt_version,
  answerModel: r.answer_model,
  judgeModel: r.judge_model,
  baseUrl: r.base_url,
  results: JSON.parse(r.results) as ProbeResult[],
  createdAt: r.created_at,
});

/** Every evaluation of a variant (its own and the baseline beside it), oldest first. */
export function listProbeEvaluations(db: DB, variantId: number): ProbeEvaluation[] {
  return (db.prepare('SELECT * FROM probe_evaluations WHERE variant_id = ? ORDER BY id').all(variantId) as Row[]).map(fromRow);
}

/** The newest evaluation of each variant of a session (subject 'variant'), as the variant table shows it. Keyed by variant id. */
export function latestProbeScores(db: DB, sessionId: number): Map<number, ProbeEvaluationSummary> {
  const rows = db
    .prepare(
      `SELECT variant_id, mode, prompt_version, probes, graded, score_sum FROM probe_evaluations p
       WHERE session_id = ? AND subject = 'variant' AND id = (SELECT MAX(id) FROM probe_evaluations q WHERE q.variant_id = p.variant_id AND q.subject = 'variant')`,
    )
    .all(sessionId) as Array<Pick<Row, 'variant_id' | 'mode' | 'prompt_version' | 'probes' | 'graded' | 'score_sum'>>;
  return new Map(rows.map((r) => [r.variant_id, { mode: r.mode, promptVersion: r.prompt_version, probes: r.probes, graded: r.graded, meanScore: r.graded > 0 ? Math.round((r.score_sum / r.graded) * 100) / 100 : null }]));
}
