/**
 * The Pareto front of cost against retention: the points no other point beats on both, i.e.
 * no other point costs no more AND retains no less with one of the two strictly better.
 * Pure; the sweep chart draws it (renderer/components/SweepChart.tsx) and the tests pin it.
 */

export interface ParetoPoint {
  /** Lower is better (cost in USD, or tokens sent). */
  cost: number;
  /** Higher is better (retention %). */
  retention: number;
}

/**
 * Indices of the points on the front, ordered by cost ascending (the line the chart draws).
 * Equal points are all on the front (neither beats the other). O(n log n).
 */
export function paretoFront(points: readonly ParetoPoint[]): number[] {
  const order = points.map((_, i) => i).sort((a, b) => points[a].cost - points[b].cost || points[b].retention - points[a].retention || a - b);
  const front: number[] = [];
  let best = -Infinity;
  let bestCost = NaN;
  for (const i of order) {
    const p = points[i];
    // Beaten when an earlier (cheaper or equal-cost, higher-retention) point retains more,
    // or retains as much at a strictly lower cost.
    if (p.retention > best || (p.retention === best && p.cost === bestCost)) {
      front.push(i);
      if (p.retention > best) bestCost = p.cost;
      best = Math.max(best, p.retention);
    }
  }
  return front;
}
