/**
 * What makes a cost figure publishable or not, said the same way in the CLI's text, its
 * JSON and the window:
 * - **unpriced**: calls at a model no price covers count $0, so the figure is a lower bound:
 *   "unpriced: 3 calls (model llama-4-maverick)", and `complete: false`;
 * - **infeasible**: a series (a variant, no compaction, the source) whose context exceeds the
 *   window of the call's model could not have run: "infeasible: exceeds 200,000 tokens at
 *   call 57"; its cost is kept as what it would have cost, flagged.
 */
import type { Infeasibility, ModelCostLine, ReplayTotals } from '../contract.js';

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** "unpriced: N calls (model a, b)". */
export function unpricedMessage(calls: number, models: readonly string[]): string {
  return `unpriced: ${calls} call${calls === 1 ? '' : 's'} (model${models.length === 1 ? '' : 's'} ${models.join(', ')})`;
}

/** The calls of the lines no price covers, or null when every line is priced. */
export function unpricedOf(lines: readonly ModelCostLine[]): NonNullable<ReplayTotals['unpriced']> | null {
  let calls = 0;
  const models: string[] = [];
  for (const l of lines) {
    if (l.known || l.calls === 0) continue;
    calls += l.calls;
    models.push(l.model);
  }
  return calls === 0 ? null : { calls, models, message: unpricedMessage(calls, models) };
}

/** Lines of the same model summed (a figure made of several parts: main calls, summarizer, child sessions). */
export function mergeCostLines(...groups: ReadonlyArray<readonly ModelCostLine[]>): ModelCostLine[] {
  const out = new Map<string, ModelCostLine>();
  for (const lines of groups) {
    for (const l of lines) {
      const have = out.get(l.model);
      if (have) {
        have.calls += l.calls;
        have.costUsd += l.costUsd;
      } else out.set(l.model, { ...l });
    }
  }
  return [...out.values()];
}

/** "infeasible: exceeds N tokens at call K". */
export function infeasibleMessage(window: number, call: number): string {
  return `infeasible: exceeds ${count(window)} tokens at call ${call}`;
}

/**
 * The first call whose context exceeds the window of its model, or null. `modelOf(k)` is the
 * index in `windows` of call k's model; a null context (not reported) is not judged.
 */
export function infeasibilityOf(context: ArrayLike<number | null>, modelOf: (k: number) => number, windows: ReadonlyArray<{ model: string; tokens: number }>): Infeasibility | null {
  for (let k = 0; k < context.length; k++) {
    const c = context[k];
    if (c === null) continue;
    const w = windows[modelOf(k)];
    if (w && c > w.tokens) return { window: w.tokens, model: w.model, atCall: k, context: c, message: infeasibleMessage(w.tokens, k) };
  }
  return null;
}

/** The flags of a figure as one short text ("" when it has none): what the CLI prints and the window shows beside it. */
export function figureFlags(t: Pick<ReplayTotals, 'unpriced' | 'infeasible'>): string {
  return [t.infeasible?.message, t.unpriced?.message].filter((x): x is string => Boolean(x)).join('; ');
}
