/**
 * Rows of `summary_facts` (migration 008): each summary's span facts, the facts it says it
 * carries, and its ledger. Plain data access; the ledger is computed in
 * electron/engine/summary-ledger.ts.
 */
import type { DB } from './db.js';
import type { FactCategory, FactSet, SummaryLedger } from '../../shared/facts/index.js';
import { sumRetention } from '../../shared/facts/index.js';
import { sumTextRetention, type TextRetention } from '../../shared/retention/text.js';

/** `spanFacts` null: not kept (a replay's summaries, migration 014). */
export function insertSummaryFacts(db: DB, row: { summaryId: number; spanFacts: FactSet | null; ownFacts: FactSet | null; ledger: SummaryLedger }): void {
  db.prepare('INSERT OR REPLACE INTO summary_facts(summary_id, span_facts, own_facts, ledger) VALUES (?, ?, ?, ?)').run(
    row.summaryId,
    row.spanFacts ? JSON.stringify(row.spanFacts) : null,
    row.ownFacts ? JSON.stringify(row.ownFacts) : null,
    JSON.stringify(row.ledger),
  );
}

/** The facts of the span a summary covers, or null when they were not kept (no row: written before migration 008; NULL: a replay's summary, migration 014). */
export function getSpanFacts(db: DB, summaryId: number): FactSet | null {
  const r = db.prepare('SELECT span_facts FROM summary_facts WHERE summary_id = ?').get(summaryId) as { span_facts: string | null } | undefined;
  return r?.span_facts ? (JSON.parse(r.span_facts) as FactSet) : null;
}

/** The facts a summary says it carries (the extractive summarizer's), or null. */
export function getOwnFacts(db: DB, summaryId: number): FactSet | null {
  const r = db.prepare('SELECT own_facts FROM summary_facts WHERE summary_id = ?').get(summaryId) as { own_facts: string | null } | undefined;
  return r?.own_facts ? (JSON.parse(r.own_facts) as FactSet) : null;
}

/** Record the facts a summary carries beside its text. */
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
  return variantScores(db, variantId)?.retention ?? null;
}

/** variantRetention with the text-level score summed over the same summaries (null when one was stored without it). */
export function variantScores(db: DB, variantId: number): LedgerScores | null {
  const rows = db
    .prepare('SELECT f.ledger FROM summaries s JOIN summary_facts f ON f.summary_id = s.id WHERE s.variant_id = ? AND s.replay_run_id IS NULL AND s.compacted = 0')
    .all(variantId) as Array<{ ledger: string }>;
  if (rows.length === 0) return null;
  const ledgers = rows.map((r) => JSON.parse(r.ledger) as SummaryLedger);
  return { retention: sumRetention(ledgers.map((l) => l.retention)), text: sumTextRetention(ledgers.map((l) => l.text)) };
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

type Retention = Record<FactCategory, { kept: number; total: number }>;

/** What a run kept: the fact ledger's retention and, beside it, the text-level score (null: not measured). */
export interface LedgerScores {
  retention: Retention;
  text: TextRetention | null;
}

const scoresOf = (ledgers: ReadonlyArray<{ retention: Retention; text?: TextRetention | null }>): LedgerScores => ({
  retention: sumRetention(ledgers.map((l) => l.retention)),
  text: sumTextRetention(ledgers.map((l) => l.text)),
});

/**
 * The one rule for what a run kept (the variant table, sweeps): a REPLAY run, summed over
 * its firings' ledgers (each firing's compacted turns — summarized, masked or dropped —
 * against the whole context the model receives right after it; shared/replay/firing-ledger.ts),
 * so masking, window and forgetting have a retention too; a PASS run, over its variant's live
 * pass summaries (`variantRetention`), or, for a pass that writes no summary (window, masking,
 * forgetting), its own 'ledger' run event (electron/engine/summary-ledger.ts `modelFreePassLedger`). Three statements whatever the number of runs. Runs
 * without any ledger are absent.
 */
export function retentionOfRuns(db: DB, runs: ReadonlyArray<{ runId: number; variantId: number; kind: 'pass' | 'replay' }>): Map<number, Retention> {
  return new Map([...scoresOfRuns(db, runs)].map(([id, s]) => [id, s.retention]));
}

/** retentionOfRuns with the text-level score of the same ledgers (shared/retention/text.ts). */
export function scoresOfRuns(db: DB, runs: ReadonlyArray<{ runId: number; variantId: number; kind: 'pass' | 'replay' }>): Map<number, LedgerScores> {
  const out = new Map<number, LedgerScores>();
  const replays = runs.filter((r) => r.kind === 'replay');
  const passes = runs.filter((r) => r.kind === 'pass');
  if (replays.length > 0) {
    // Only the retention leaves SQLite: a window replay has ~50k firing rows whose state is large.
    const rows = db
      .prepare(
        `SELECT run_id, json_extract(data, '$.ledger.retention') AS retention, json_extract(data, '$.ledger.text') AS text FROM run_events
         WHERE kind = 'firing' AND run_id IN (SELECT value FROM json_each(?)) AND json_extract(data, '$.ledger.retention') IS NOT NULL ORDER BY id`,
      )
      .all(JSON.stringify(replays.map((r) => r.runId))) as Array<{ run_id: number; retention: string; text: string | null }>;
    const byRun = new Map<number, Array<{ retention: Retention; text: TextRetention | null }>>();
    for (const r of rows) byRun.set(r.run_id, [...(byRun.get(r.run_id) ?? []), { retention: JSON.parse(r.retention) as Retention, text: r.text ? (JSON.parse(r.text) as TextRetention) : null }]);
    for (const [runId, list] of byRun) out.set(runId, scoresOf(list));
  }
  if (passes.length > 0) {
    // A pass that wrote no summary (window, masking, forgetting) carries its ledger as a run event.
    const own = db
      .prepare(`SELECT run_id, json_extract(data, '$.ledger.retention') AS retention, json_extract(data, '$.ledger.text') AS text FROM run_events WHERE kind = 'ledger' AND run_id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(passes.map((r) => r.runId))) as Array<{ run_id: number; retention: string | null; text: string | null }>;
    for (const r of own) if (r.retention) out.set(r.run_id, scoresOf([{ retention: JSON.parse(r.retention) as Retention, text: r.text ? (JSON.parse(r.text) as TextRetention) : null }]));
    const rows = db
      .prepare(
        `SELECT s.variant_id AS variant_id, f.ledger AS ledger FROM summaries s JOIN summary_facts f ON f.summary_id = s.id
         WHERE s.variant_id IN (SELECT value FROM json_each(?)) AND s.replay_run_id IS NULL AND s.compacted = 0`,
      )
      .all(JSON.stringify([...new Set(passes.map((r) => r.variantId))])) as Array<{ variant_id: number; ledger: string }>;
    const byVariant = new Map<number, SummaryLedger[]>();
    for (const r of rows) byVariant.set(r.variant_id, [...(byVariant.get(r.variant_id) ?? []), JSON.parse(r.ledger) as SummaryLedger]);
    for (const r of passes) {
      const list = byVariant.get(r.variantId);
      if (list && !out.has(r.runId)) out.set(r.runId, scoresOf(list));
    }
  }
  return out;
}

/**
 * Retention of every variant of a session (the variant table): its latest completed replay
 * when it has one, else its newest pass run, by `retentionOfRuns`. Variants without a ledger
 * are absent. Keyed by variant id.
 */
export function retentionBySession(db: DB, sessionId: number): Map<number, LedgerScores> {
  const runs = db
    .prepare(
      `SELECT v.id AS variantId, COALESCE(
          (SELECT MAX(r.id) FROM runs r WHERE r.variant_id = v.id AND r.kind = 'replay' AND r.status = 'completed'),
          (SELECT MAX(r.id) FROM runs r WHERE r.variant_id = v.id AND r.kind = 'pass')) AS runId,
        CASE WHEN EXISTS (SELECT 1 FROM runs r WHERE r.variant_id = v.id AND r.kind = 'replay' AND r.status = 'completed') THEN 'replay' ELSE 'pass' END AS kind
       FROM variants v WHERE v.session_id = ?`,
    )
    .all(sessionId) as Array<{ variantId: number; runId: number | null; kind: 'pass' | 'replay' }>;
  const withRun = runs.filter((r): r is { variantId: number; runId: number; kind: 'pass' | 'replay' } => r.runId !== null);
  const byRun = scoresOfRuns(db, withRun);
  const out = new Map<number, LedgerScores>();
  for (const r of withRun) {
    const ret = byRun.get(r.runId);
    if (ret) out.set(r.variantId, ret);
  }
  return out;
}

/**
 * Retention of every point of a sweep, measured on the run the point reports
 * (`retentionOfRuns`). Points whose run left no ledger are absent. Keyed by sweep_points.id.
 */
export function retentionBySweepPoint(db: DB, sweepId: number): Map<number, LedgerScores> {
  const points = db
    .prepare('SELECT p.id AS pointId, p.run_id AS runId, p.variant_id AS variantId, r.kind AS kind FROM sweep_points p JOIN runs r ON r.id = p.run_id WHERE p.sweep_id = ?')
    .all(sweepId) as Array<{ pointId: number; runId: number; variantId: number; kind: 'pass' | 'replay' }>;
  const byRun = scoresOfRuns(db, points);
  const out = new Map<number, LedgerScores>();
  for (const p of points) {
    const ret = byRun.get(p.runId);
    if (ret) out.set(p.pointId, ret);
  }
  return out;
}
