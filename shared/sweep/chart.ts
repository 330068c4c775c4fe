/**
 * What the sweep chart plots, pure: one point per parameter point — over every session of
 * the sweep (costs summed, facts kept and total summed before the %), or over one session —
 * with its Pareto front (shared/compare/pareto.ts). A session whose run wrote no summary adds
 * its cost and no fact (nothing was at stake there); a parameter point with no fact at stake
 * anywhere (a strategy that writes no summary) or without a cost is left off and counted apart.
 */
import { paretoFront } from '../compare/pareto.js';
import { FACT_CATEGORIES } from '../facts/types.js';
import { pointLabel } from './grid.js';
import { sweepCost } from './table.js';
import type { SweepRow } from './types.js';

export interface SweepChartPoint {
  /** `keepFirst=1 maxTurns=10`. */
  label: string;
  params: Record<string, number>;
  cost: number;
  retentionPct: number;
  /** The text-level score over the same rows (shared/retention/text.ts); null when a row with a ledger has none. */
  textRetentionPct: number | null;
  /** The rows it sums (one per session). */
  rows: SweepRow[];
  onFront: boolean;
}

export interface SweepChart {
  /** Ordered by cost (then retention), the order uPlot's x needs. */
  points: SweepChartPoint[];
  /** Indices into `points` of the Pareto front, cheapest first. */
  front: number[];
  /** Parameter points left off: no fact at stake on any of its sessions, or no cost. */
  unplotted: number;
}

/** The chart of a sweep's rows; `sessionId` null sums over every session. */
export function sweepChart(rows: readonly SweepRow[], sessionId: number | null): SweepChart {
  const groups = new Map<string, SweepRow[]>();
  for (const r of rows) {
    if (sessionId !== null && r.sessionId !== sessionId) continue;
    const key = pointLabel(r.params);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const points: SweepChartPoint[] = [];
  let unplotted = 0;
  for (const [label, group] of groups) {
    let cost = 0;
    let kept = 0;
    let total = 0;
    let textKept = 0;
    let textTotal = 0;
    let textMeasured = true;
    let ok = true;
    for (const r of group) {
      const c = sweepCost(r);
      if (c === null) {
        ok = false;
        break;
      }
      cost += c;
      // No ledger on a session: nothing of it was summarized there, so no fact is at stake.
      if (r.retention === null) continue;
      if (r.textRetention) {
        textKept += r.textRetention.kept;
        textTotal += r.textRetention.total;
      } else textMeasured = false;
      for (const cat of FACT_CATEGORIES) {
        kept += r.retention[cat].kept;
        total += r.retention[cat].total;
      }
    }
    if (!ok || total === 0) {
      unplotted++;
      continue;
    }
    const textRetentionPct = textMeasured && textTotal > 0 ? Math.round((textKept / textTotal) * 10000) / 100 : null;
    points.push({ label, params: group[0].params, cost, retentionPct: Math.round((kept / total) * 10000) / 100, textRetentionPct, rows: group, onFront: false });
  }
  points.sort((a, b) => a.cost - b.cost || b.retentionPct - a.retentionPct);
  const front = paretoFront(points.map((p) => ({ cost: p.cost, retention: p.retentionPct })));
  for (const i of front) points[i].onFront = true;
  return { points, front, unplotted };
}
