/**
 * Rows of `summary_facts` (migration 008): each summary's span facts, the facts it says it
 * carries, and its ledger. Plain data access; the ledger is computed in
 * electron/engine/summary-ledger.ts.
 */
import type { DB } from './db.js';
import type { FactCategory, FactSet, SummaryLedger } from '../../shared/facts/index.js';
import { sumRetention } from '../../shared/facts/index.js';

export function insertSummaryFacts(db: DB, row: { summaryId: number; spanFacts: FactSet; ownFacts: FactSet | null; ledger: SummaryLedger }): void {
  db.prepare('INSERT OR REPLACE INTO summary_facts(summary_id, span_facts, own_facts, ledger) VALUES (?, ?, ?, ?)').run(row.summaryId, JSON.stringify(row.spanFacts), row.ownFacts ? JSON.stringify(row.ownFacts) : null, JSON.stringify(row.ledger));
}

/** The facts of the span a summary covers, or null when it has no row (written before migration 008). */
export function getSpanFacts(db: DB, summaryId: number): FactSet | null {
  const r = db.prepare('SELECT span_facts FROM summary_facts WHERE summary_id = ?').get(summaryId) as { span_facts: string } | undefined;
  return r ? (JSON.parse(r.span_facts) as FactSet) : null;
}

/** The facts a summary says it carries (issue 9's summarizer), or null. */
export function getOwnFacts(db: DB, summaryId: number): FactSet | null {
  const r = db.prepare('SELECT own_facts FROM summary_facts WHERE summary_id = ?').get(summaryId) as { own_facts: string | null } | undefined;
  return r?.own_facts ? (JSON.parse(r.own_facts) as FactSet) : null;
}

/** Issue 9: record the facts a summary carries beside its text. */
export function setOwnFacts(db: DB, summaryId: number, own: FactSet): void {
  db.prepare('UPDATE summary_facts SET own_facts = ? WHERE summary_id = ?').run(JSON.stringify(own), summaryId);
}

/** The stored ledgers of some summaries (those without a row are absent). */
export function ledgersOf(db: DB, summaryIds: readonly number[]): Map<number, SummaryLedger> {
  const out = new Map<number, SummaryLedger>();
  const stmt = db.prepare('SELECT ledger FROM summary_facts WHERE summary_id = ?');
  for (const id of summaryIds) {
    const r = stmt.get(id) as { ledger: string } | undefined;
    if (r) out.set(id, JSON.parse(r.ledger) as SummaryLedger);
  }
  return out;
}

/**
 * A variant's retention: summed over the ledgers of its live pass summaries (what the model
 * sees in place of the compacted turns; folded summaries are counted through their
 * parents). Null when the variant has no live summary with a ledger.
 */
export function variantRetention(db: DB, variantId: number): Record<FactCategory, { kept: number; total: number }> | null {
  const rows = db
    .prepare('SELECT f.ledger FROM summaries s JOIN summary_facts f ON f.summary_id = s.id WHERE s.variant_id = ? AND s.replay_run_id IS NULL AND s.compacted = 0')
    .all(variantId) as Array<{ ledger: string }>;
  if (rows.length === 0) return null;
  return sumRetention(rows.map((r) => (JSON.parse(r.ledger) as SummaryLedger).retention));
}

/** What the ledger of one summary reads: its text, session, range, child summaries and the positions of the turns it covers directly. */
export function summaryForLedger(db: DB, summaryId: number): { sessionId: number; text: string; firstPosition: number; lastPosition: number; childIds: number[]; turnPositions: number[] } | null {
  const s = db.prepare('SELECT v.session_id, s.text, s.first_position, s.last_position FROM summaries s JOIN variants v ON v.id = s.variant_id WHERE s.id = ?').get(summaryId) as
    | { session_id: number; text: string; first_position: number; last_position: number }
    | undefined;
  if (!s) return null;
  const edges = db.prepare('SELECT ss.child_summary_id, t.position FROM summary_sources ss LEFT JOIN turns t ON t.id = ss.turn_id WHERE ss.summary_id = ? ORDER BY ss.ord').all(summaryId) as Array<{ child_summary_id: number | null; position: number | null }>;
  return {
    sessionId: s.session_id,
    text: s.text,
    firstPosition: s.first_position,
    lastPosition: s.last_position,
    childIds: edges.filter((e) => e.child_summary_id !== null).map((e) => e.child_summary_id!),
    turnPositions: edges.filter((e) => e.position !== null).map((e) => e.position!),
  };
}

/**
 * Retention of every variant of a session in ONE statement (the variant table): for a
 * variant with a completed replay, summed over the ledgers of every summary its latest
 * replay wrote (each compaction measured against the span it replaced), else over its live
 * pass summaries as in `variantRetention`. Variants without a ledger are absent.
 */
export function retentionBySession(db: DB, sessionId: number): Map<number, Record<FactCategory, { kept: number; total: number }>> {
  const rows = db
    .prepare(
      `SELECT s.variant_id AS variant_id, f.ledger AS ledger
       FROM summaries s JOIN summary_facts f ON f.summary_id = s.id JOIN variants v ON v.id = s.variant_id
       LEFT JOIN runs lr ON lr.id = (SELECT MAX(r.id) FROM runs r WHERE r.variant_id = v.id AND r.kind = 'replay' AND r.status = 'completed')
       WHERE v.session_id = ?
         AND ((lr.id IS NOT NULL AND s.replay_run_id = lr.id) OR (lr.id IS NULL AND s.replay_run_id IS NULL AND s.compacted = 0))`,
    )
    .all(sessionId) as Array<{ variant_id: number; ledger: string }>;
  const byVariant = new Map<number, Array<SummaryLedger['retention']>>();
  for (const r of rows) {
    const list = byVariant.get(r.variant_id) ?? [];
    list.push((JSON.parse(r.ledger) as SummaryLedger).retention);
    byVariant.set(r.variant_id, list);
  }
  return new Map([...byVariant].map(([id, list]) => [id, sumRetention(list)]));
}

/**
 * Retention of every point of a sweep in ONE statement, measured on the run the point
 * reports: a replay run over every summary that replay wrote (as `retentionBySession` does for
 * a variant's latest replay); a pass run over the variant's live pass summaries (as
 * `variantRetention`). Points whose run left no ledger (a strategy that writes no summary)
 * are absent. Keyed by sweep_points.id.
 */
export function retentionBySweepPoint(db: DB, sweepId: number): Map<number, Record<FactCategory, { kept: number; total: number }>> {
  const rows = db
    .prepare(
      `SELECT p.id AS point_id, f.ledger AS ledger
       FROM sweep_points p JOIN runs r ON r.id = p.run_id
       JOIN summaries s ON s.variant_id = p.variant_id
         AND ((r.kind = 'replay' AND s.replay_run_id = r.id) OR (r.kind = 'pass' AND s.replay_run_id IS NULL AND s.compacted = 0))
       JOIN summary_facts f ON f.summary_id = s.id
       WHERE p.sweep_id = ?`,
    )
    .all(sweepId) as Array<{ point_id: number; ledger: string }>;
  const byPoint = new Map<number, Array<SummaryLedger['retention']>>();
  for (const r of rows) {
    const list = byPoint.get(r.point_id) ?? [];
    list.push((JSON.parse(r.ledger) as SummaryLedger).retention);
    byPoint.set(r.point_id, list);
  }
  return new Map([...byPoint].map(([id, list]) => [id, sumRetention(list)]));
}
