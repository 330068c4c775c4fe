/**
 * Strategy `forgetting`: model-free amortized forgetting, after OpenHands'
 * AmortizedForgettingCondenser: when the (condensed) history holds more than `maxSize`
 * turns, keep the first `keepFirst` and the most recent `maxSize // 2 - keepFirst`, and
 * forget the rest, so the history drops to half its maximum and grows again before the
 * next forgetting (the cost is amortized over many steps).
 *
 * It is stateful like the original: it works on the *view*, the conversation turns not
 * already dropped by earlier passes (VariantState.droppedRanges, inclusive position ranges
 * kept merged). The pass writes the merged ranges back; no summaries are written.
 *
 * Choices (documented differences):
 * - counts are over conversation (non-system) turns; system turns are never dropped;
 * - tool-cycle safety: the tail start moves EARLIER and the head end LATER to safe cuts
 *   (keeping a little more), so no tool_use is kept without its tool_result or vice versa;
 * - keepFirst must be < floor(maxSize / 2), as OpenHands enforces (ParamError otherwise).
 * Defaults: max_size 100 (OpenHands), keep_first 1 (OpenHands' condenser config default;
 * the class itself defaults to 0).
 */
import type { ParamSpec } from './params.js';
import { ParamError } from './params.js';
import type { StrategyRules } from './strategy.js';
import { droppedCandidates } from '../replay/candidates.js';
import { isOnlyField, type Plan, type PlanInput, type PlanSpan } from './types.js';
import { buildSpanIndex, convCountIn, convCountInRanges, convTokensInRanges, mergeIntervals, positionInView, safeCutAtOrAfter, safeCutAtOrBefore } from './spans.js';
import type { TurnMeta } from '../model/turn.js';

export type ForgettingParams = { maxSize: number; keepFirst: number };

export const forgettingSpecs: readonly ParamSpec[] = [
  {
    name: 'maxSize',
    label: 'Max size',
    default: 100,
    min: 2,
    max: null,
    sliderMax: 1000,
    step: 1,
    kind: 'int',
    unit: 'turns',
    doc: 'When the history exceeds this many conversation turns, forget down to half. Default 100 (OpenHands AmortizedForgettingCondenser max_size=100).',
  },
  {
    name: 'keepFirst',
    label: 'Keep first',
    default: 1,
    min: 0,
    max: null,
    sliderMax: 20,
    step: 1,
    kind: 'int',
    unit: 'turns',
    doc: 'Conversation turns always kept from the start; must be < maxSize / 2. Default 1 (OpenHands condenser config keep_first=1).',
  },
];

/** The newly forgotten conversation turns of [from, to) that no earlier range already dropped. */
function newlyDroppedSpan(turns: readonly TurnMeta[], existing: ReadonlyArray<readonly [number, number]>, from: number, to: number): PlanSpan | null {
  const turnIds: number[] = [];
  let tokens = 0;
  let chars = 0;
  let first = -1;
  let last = -1;
  let r = 0;
  for (let p = from; p < to; p++) {
    while (r < existing.length && existing[r][1] < p) r++;
    if (r < existing.length && existing[r][0] <= p) {
      p = existing[r][1]; // skip the whole earlier range
      continue;
    }
    const t = turns[p];
    if (t.role === 'system') continue;
    turnIds.push(t.id);
    tokens += t.tokenCount;
    chars += t.charCount;
    if (first < 0) first = p;
    last = p;
  }
  if (turnIds.length === 0) return null;
  return { id: 'p0', purpose: 'drop', firstPosition: first, lastPosition: last, turnIds, tokens, chars, targetTokens: 0 };
}

/** The dropped ranges after this plan (merged, inclusive): what the pass stores in state.droppedRanges. */
export function droppedRangesAfter(plan: Plan<ForgettingParams>, existing: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const extra = plan.spans.map((s) => [s.firstPosition, s.lastPosition] as [number, number]);
  return mergeIntervals([...existing, ...extra]);
}

export function planForgetting(input: PlanInput<ForgettingParams>): Plan<ForgettingParams> {
  const { turns, state, params } = input;
  const targetSize = Math.floor(params.maxSize / 2);
  if (params.keepFirst >= targetSize) throw new ParamError(`parameter keepFirst (${params.keepFirst}) must be less than half of maxSize (${params.maxSize})`);
  const ix = buildSpanIndex(turns);
  const n = ix.count;
  const existing = mergeIntervals(state.droppedRanges ?? []);
  const viewLength = ix.convCountPrefix[n] - convCountInRanges(ix, existing);
  const tokensBefore = ix.totalTokens - convTokensInRanges(ix, existing);

  let span: PlanSpan | null = null;
  let reason: string;
  let headEnd = n;
  let tailStart = n;
  if (viewLength <= params.maxSize) {
    reason = `history of ${viewLength} turns <= maxSize ${params.maxSize}`;
  } else {
    const tailCount = targetSize - params.keepFirst;
    headEnd = safeCutAtOrAfter(ix, positionInView(ix, existing, params.keepFirst));
    tailStart = safeCutAtOrBefore(ix, positionInView(ix, existing, viewLength - tailCount));
    span = headEnd < tailStart ? newlyDroppedSpan(turns, existing, headEnd, tailStart) : null;
    reason = span
      ? `history of ${viewLength} turns > maxSize ${params.maxSize}: forget ${span.turnIds.length}, keeping the first ${params.keepFirst} and the last ${tailCount} (target ${targetSize})`
      : `history of ${viewLength} turns > maxSize ${params.maxSize}, but a tool cycle spans everything between head and tail`;
  }
  const dropped = span ? span.tokens : 0;
  return {
    strategy: 'forgetting',
    params,
    trigger: { compact: span !== null, reason },
    boundaries: span
      ? [
          { kind: 'kept-window', position: headEnd, label: `first ${params.keepFirst} turns kept` },
          { kind: 'kept-window', position: tailStart, label: 'most recent turns kept' },
        ]
      : [],
    spans: span ? [span] : [],
    condense: [],
    dag: { nodes: [], edges: [] },
    tokensBefore,
    tokensAfter: tokensBefore - dropped,
    budget: null,
  };
}

export const forgettingStrategy: StrategyRules<ForgettingParams> = {
  name: 'forgetting',
  label: 'Amortized forgetting',
  description:
    'Model-free: when the history exceeds maxSize turns, forgets all but the first keepFirst and the most recent turns, down to maxSize / 2; tool-cycle safe. After OpenHands AmortizedForgettingCondenser.',
  specs: forgettingSpecs,
  plan: planForgetting,
  view: ({ turns, state }) => droppedCandidates(turns, state),
  live: {
    mayFire: (m, p) => m.viewTurns > p.maxSize,
    // The forgetting pass (shared/passes/forgetting.ts: this planner + runDropPass) without the machinery.
    step: (ix, params, state, turns) => {
      const plan = planForgetting({ turns: turns(), summaries: [], state, params });
      const span = plan.spans[0];
      if (!plan.trigger.compact || !span) return null;
      const droppedRanges = droppedRangesAfter(plan, state.droppedRanges ?? []);
      const visibleTokens = ix.totalTokens - convTokensInRanges(ix, droppedRanges);
      const turnsDropped = convCountIn(ix, span.firstPosition, span.lastPosition + 1);
      return { state: isOnlyField(state, 'droppedRanges') ? { droppedRanges } : { ...state, droppedRanges }, visibleTokens, facts: { reason: plan.trigger.reason, turnsDropped, tokensDropped: span.tokens, plannedTokensAfter: plan.tokensAfter } };
    },
    describeStep: (_session, _end, { state, facts = {} }) => {
      const reason = String(facts.reason);
      return { reason, stats: { reason, turnsDropped: facts.turnsDropped, tokensDropped: facts.tokensDropped, droppedRanges: state.droppedRanges, plannedTokensAfter: facts.plannedTokensAfter } };
    },
    lines: () => [],
  },
};
