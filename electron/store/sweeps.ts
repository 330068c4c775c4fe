/**
 * Data access for sweeps (migration 011): the sweep rows, their (session, point) rows, the
 * run a point reuses, and a sweep's rows with their runs' figures and retention — every SQL
 * statement of the sweep lives here; the orchestration is electron/engine/sweep.ts.
 */
import crypto from 'node:crypto';
import type { DB } from './db.js';
import { retentionBySweepPoint } from './summary-facts.js';
import { stableJson } from '../../shared/model/turn.js';
import { retentionCells, textRetentionCells } from '../../shared/sweep/table.js';
import type { RunStatus, SummarizerConfig } from '../../shared/contract.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import type { SweepAxis, SweepDetail, SweepInfo, SweepKind, SweepRow } from '../../shared/sweep/types.js';

/** What a sweep is, before it has a row: a stored sweep without its id and time. The summarizer is its identity (kind, model, baseURL; never a key). */
export type SweepDefinition = Omit<SweepInfo, 'id' | 'createdAt' | 'points'>;

interface SweepRowDb {
  id: number;
  strategy: StrategyName;
  grid: string;
  fixed_params: string;
  summarizer: string;
  sessions: string;
  kind: SweepKind;
  created_at: string;
  points: number;
}

function sweepFromRow(r: SweepRowDb): SweepInfo {
  return {
    id: r.id,
    strategy: r.strategy,
    grid: JSON.parse(r.grid) as SweepAxis[],
    fixedParams: JSON.parse(r.fixed_params) as Record<string, number>,
    summarizer: JSON.parse(r.summarizer) as SummarizerConfig,
    sessionIds: (JSON.parse(r.sessions) as { sessionIds: number[] }).sessionIds,
    kind: r.kind,
    createdAt: r.created_at,
    points: r.points,
  };
}

const SELECT_SWEEP = 'SELECT s.*, (SELECT COUNT(*) FROM sweep_points p WHERE p.sweep_id = s.id) AS points FROM sweeps s';

/**
 * What a sweep is, as a key that is the same on every machine: the sessions by content hash
 * (ids differ between databases), everything else as given. Shards of one sweep share it.
 */
function sweepKey(db: DB, d: SweepDefinition): string {
  const hash = db.prepare('SELECT source_hash FROM sessions WHERE id = ?');
  const sessions = d.sessionIds.map((id) => (hash.get(id) as { source_hash: string } | undefined)?.source_hash ?? `#${id}`);
  return crypto.createHash('sha256').update(stableJson({ s: d.strategy, g: d.grid, f: d.fixedParams, m: d.summarizer, k: d.kind, n: sessions })).digest('hex');
}

/** The sweep of this definition, created on first use (a re-run or a shard finds it again). */
export function getOrCreateSweep(db: DB, d: SweepDefinition): SweepInfo {
  const key = sweepKey(db, d);
  const found = db.prepare(`${SELECT_SWEEP} WHERE s.sweep_key = ?`).get(key) as SweepRowDb | undefined;
  if (found) return sweepFromRow(found);
  db.prepare('INSERT INTO sweeps(sweep_key, strategy, grid, fixed_params, summarizer, sessions, kind, created_at) VALUES (?,?,?,?,?,?,?,?)').run(
    key,
    d.strategy,
    JSON.stringify(d.grid),
    stableJson(d.fixedParams),
    stableJson(d.summarizer),
    JSON.stringify({ sessionIds: d.sessionIds }),
    d.kind,
    new Date().toISOString(),
  );
  return sweepFromRow(db.prepare(`${SELECT_SWEEP} WHERE s.sweep_key = ?`).get(key) as SweepRowDb);
}

/**
 * The newest run of the variant of this kind that a sweep may report instead of running again:
 * a completed replay; a completed pass, or a skipped one (the strategy said the session needs
 * no compaction under these parameters) unless `forced` (a forced pass must have run).
 */
export function latestFinishedRun(db: DB, variantId: number, kind: SweepKind, forced = false): number | null {
  const statuses = kind === 'pass' && !forced ? "('completed', 'skipped')" : "('completed')";
  const r = db.prepare(`SELECT id FROM runs WHERE variant_id = ? AND kind = ? AND status IN ${statuses} ORDER BY id DESC LIMIT 1`).get(variantId, kind) as { id: number } | undefined;
  return r?.id ?? null;
}

/** Stores (or moves to a newer run) one pair of a sweep. */
export function recordSweepPoint(db: DB, p: { sweepId: number; pairIndex: number; sessionId: number; variantId: number; runId: number; params: Record<string, number> }): void {
  db.prepare(
    `INSERT INTO sweep_points(sweep_id, pair_index, session_id, variant_id, run_id, params) VALUES (?,?,?,?,?,?)
     ON CONFLICT(sweep_id, pair_index) DO UPDATE SET session_id = excluded.session_id, variant_id = excluded.variant_id, run_id = excluded.run_id, params = excluded.params`,
  ).run(p.sweepId, p.pairIndex, p.sessionId, p.variantId, p.runId, JSON.stringify(p.params));
}

/** Stored sweeps, newest first; with a session, those with a point on it. */
export function listSweeps(db: DB, sessionId?: number): SweepInfo[] {
  const rows =
    sessionId === undefined
      ? (db.prepare(`${SELECT_SWEEP} ORDER BY s.id DESC`).all() as SweepRowDb[])
      : (db.prepare(`${SELECT_SWEEP} WHERE EXISTS (SELECT 1 FROM sweep_points p WHERE p.sweep_id = s.id AND p.session_id = ?) ORDER BY s.id DESC`).all(sessionId) as SweepRowDb[]);
  return rows.map(sweepFromRow);
}

export function getSweepInfo(db: DB, sweepId: number): SweepInfo | null {
  const r = db.prepare(`${SELECT_SWEEP} WHERE s.id = ?`).get(sweepId) as SweepRowDb | undefined;
  return r ? sweepFromRow(r) : null;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * A sweep with its rows in sweep order: each point's run (status, kind, stats; the summaries a
 * pass wrote) in one statement, retention in one more (`retentionBySweepPoint`). Null when
 * there is no such sweep.
 */
export function getSweepDetail(db: DB, sweepId: number): SweepDetail | null {
  const sweep = getSweepInfo(db, sweepId);
  if (!sweep) return null;
  const points = db
    .prepare(
      `SELECT p.id, p.pair_index, p.session_id, p.variant_id, p.run_id, p.params, r.status, r.kind, r.stats,
        (SELECT COUNT(*) FROM summaries s WHERE s.run_id = r.id) AS summaries
       FROM sweep_points p JOIN runs r ON r.id = p.run_id
       WHERE p.sweep_id = ? ORDER BY p.pair_index`,
    )
    .all(sweepId) as Array<{ id: number; pair_index: number; session_id: number; variant_id: number; run_id: number; params: string; status: RunStatus; kind: SweepKind; stats: string; summaries: number }>;
  const retention = retentionBySweepPoint(db, sweepId);
  const rows: SweepRow[] = points.map((p) => {
    const s = JSON.parse(p.stats) as Record<string, unknown>;
    return {
      index: p.pair_index,
      sessionId: p.session_id,
      params: JSON.parse(p.params) as Record<string, number>,
      variantId: p.variant_id,
      runId: p.run_id,
      status: p.status,
      replay:
        p.kind === 'replay'
          ? {
              modelCalls: num(s.modelCalls),
              inputTokens: num(s.inputTokens),
              cacheReadTokens: num(s.cacheReadTokens),
              cacheWriteTokens: num(s.cacheWriteTokens),
              costUsd: num(s.costUsd),
              summarizerCostUsd: num(s.summarizerCostUsd),
              peakContext: num(s.peakContext),
              firings: num(s.firings),
              summarizerCalls: num(s.summarizerCalls),
            }
          : null,
      pass: p.kind === 'pass' ? { tokensBefore: numOrNull(s.tokensBefore), tokensAfter: numOrNull(s.tokensAfter), summaries: p.summaries, summarizerCalls: num(s.summarizerCalls), summarizerCostUsd: num(s.costUsd) } : null,
      ...retentionCells(retention.get(p.id)?.retention ?? null),
      ...textRetentionCells(retention.get(p.id)?.text ?? null),
    };
  });
  return { sweep, rows };
}
