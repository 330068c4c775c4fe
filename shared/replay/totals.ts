/**
 * A timeline's totals (the contract's ReplayTotals) from the sums of its calls: the same
 * shape for a variant, no compaction and the source, with each figure's cost per model,
 * its unpriced calls and where it exceeds its model's window.
 */
import type { Infeasibility, ModelCostLine, ReplayTotals } from '../contract.js';
import type { CostTotals, ModelCostTotals } from '../cost/caching.js';
import { unpricedOf } from '../cost/figures.js';

export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The contract's lines of a simulation's per-model sums. */
export function costLines(byModel: readonly ModelCostTotals[]): ModelCostLine[] {
  return byModel.map((m) => ({ model: m.model, calls: m.calls, costUsd: m.costUsd, known: m.known }));
}

export interface TotalsExtra {
  summarizerCostUsd: number;
  firings: number;
  maxDepth: number;
  /** The calls' cost per model (the summarizer's line among them). */
  byModel: readonly ModelCostLine[];
  infeasible: Infeasibility | null;
}

export function totalsOf(t: CostTotals, context: ReadonlyArray<number | null>, extra: TotalsExtra): ReplayTotals {
  const unpriced = unpricedOf(extra.byModel);
  return {
    modelCalls: t.calls,
    inputTokens: t.promptTokens,
    cacheReadTokens: t.cacheReadTokens,
    cacheWriteTokens: t.cacheWriteTokens,
    outputTokens: t.outputTokens,
    costUsd: round6(t.costUsd + extra.summarizerCostUsd),
    summarizerCostUsd: round6(extra.summarizerCostUsd),
    peakContext: context.reduce<number>((a, b) => (b !== null && b > a ? b : a), 0),
    firings: extra.firings,
    maxDepth: extra.maxDepth,
    byModel: extra.byModel.map((l) => ({ ...l, costUsd: round6(l.costUsd) })),
    unpriced,
    complete: unpriced === null,
    infeasible: extra.infeasible,
  };
}
