/**
 * Strategy `window`: model-free recent-turns window, after OpenHands' RecentEventsCondenser
 * (openhands/memory/condenser/impl/recent_events_condenser.py): keep the first `keepFirst`
 * turns and the last `maxTurns` turns, drop the middle. No summaries are written; the pass
 * records the dropped range in VariantState.droppedRanges for the replay.
 *
 * Differences from OpenHands, on purpose:
 * - counts are over conversation (non-system) turns: system turns are never dropped (every
 *   strategy here keeps the system prompt, and in Anthropic's format it is not a message),
 *   so keepFirst 1 keeps the first user turn, normally the task statement (in OpenHands
 *   event 0 is the system message itself, which our model keeps anyway);
 * - the rule "keep the first keepFirst and the last maxTurns" is followed literally:
 *   OpenHands' max_events includes the head (tail = max_events - keep_first);
 * - tool-cycle safety: the tail start moves EARLIER and the head end LATER to safe cuts,
 *   so a tool_use is never kept without its tool_result (or the reverse); both only keep more.
 * Defaults are OpenHands' RecentEventsCondenser defaults: keep_first 1, max_events 10.
 */
import type { ParamSpec } from './params.js';
import type { StrategyRules } from './strategy.js';
import { droppedCandidates } from '../replay/candidates.js';
import { isOnlyField, type Plan, type PlanInput, type PlanSpan } from './types.js';
import { buildSpanIndex, convCountIn, convTokensIn, convTokensInRanges, makeSpan, positionOfConvTurn, safeCutAtOrAfter, safeCutAtOrBefore, type SpanIndex } from './spans.js';

export type WindowParams = { keepFirst: number; maxTurns: number };

export const windowSpecs: readonly ParamSpec[] = [
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
    doc: 'Conversation turns kept from the start (the task). Default 1 (OpenHands RecentEventsCondenser keep_first=1).',
  },
  {
    name: 'maxTurns',
    label: 'Recent turns',
    default: 10,
    min: 1,
    max: null,
    sliderMax: 500,
    step: 1,
    kind: 'int',
    unit: 'turns',
    doc: 'Most recent conversation turns kept, IN ADDITION to the first keepFirst (OpenHands counts its max_events=10 with the head included; for its exact count set maxTurns = max_events − keep_first = 9). Default 10.',
  },
];

/** A kept end of the window, and why it is larger than asked when a tool cycle made it grow. */
function keptLabel(end: 'first' | 'last', kept: number, asked: number): string {
  const param = end === 'first' ? 'keepFirst' : 'maxTurns';
  const turns = `${kept} turn${kept === 1 ? '' : 's'}`;
  return kept > asked ? `${end} ${turns} kept (${param} ${asked}, grown to keep a tool call with its result)` : `${end} ${turns} kept (${param})`;
}

/**
 * The window's cuts on the turns an index covers: the head ends at `headEnd` (after the
 * first keepFirst conversation turns), the tail starts at `tailStart`; null when every
 * conversation turn fits. Both moved to tool-cycle-safe cuts (they only keep more).
 */
export function windowCuts(ix: SpanIndex, params: WindowParams): { headEnd: number; tailStart: number; convTotal: number } | null {
  const convTotal = ix.convCountPrefix[ix.count];
  if (convTotal <= params.keepFirst + params.maxTurns) return null;
  return { headEnd: headEndOf(ix, params), tailStart: tailStartOf(ix, params, convTotal), convTotal };
}

const headEndOf = (ix: SpanIndex, params: WindowParams) => safeCutAtOrAfter(ix, positionOfConvTurn(ix, params.keepFirst));
const tailStartOf = (ix: SpanIndex, params: WindowParams, convTotal: number) => safeCutAtOrBefore(ix, positionOfConvTurn(ix, convTotal - params.maxTurns));

const dropReason = (dropped: number, convTotal: number, head: number, tail: number) => `drop ${dropped} of ${convTotal} turns between the first ${head} and the last ${tail}`;

export function planWindow(input: PlanInput<WindowParams>): Plan<WindowParams> {
  const { turns, params } = input;
  const ix = buildSpanIndex(turns);
  const n = ix.count;
  const convTotal = ix.convCountPrefix[n];
  const tokensBefore = ix.totalTokens;

  let spans: PlanSpan[] = [];
  let reason: string;
  let headEnd = n;
  let tailStart = n;
  const cuts = windowCuts(ix, params);
  if (!cuts) {
    reason = `${convTotal} turns fit in the window (first ${params.keepFirst} + last ${params.maxTurns})`;
  } else {
    ({ headEnd, tailStart } = cuts);
    const span = headEnd < tailStart ? makeSpan(turns, ix, { id: 'p0', purpose: 'drop', from: headEnd, to: tailStart, targetTokens: 0 }) : null;
    if (span) {
      spans = [span];
      reason = dropReason(convCountIn(ix, headEnd, tailStart), convTotal, convCountIn(ix, 0, headEnd), convCountIn(ix, tailStart, n));
    } else {
      reason = 'nothing to drop: a tool cycle spans the whole middle of the window';
    }
  }
  const dropped = spans.length > 0 ? spans[0].tokens : 0;
  return {
    strategy: 'window',
    params,
    trigger: { compact: spans.length > 0, reason },
    boundaries:
      spans.length > 0
        ? [
            { kind: 'kept-window', position: headEnd, label: keptLabel('first', convCountIn(ix, 0, headEnd), params.keepFirst) },
            { kind: 'kept-window', position: tailStart, label: keptLabel('last', convCountIn(ix, tailStart, n), params.maxTurns) },
          ]
        : [],
    spans,
    condense: [],
    dag: { nodes: [], edges: [] },
    tokensBefore,
    tokensAfter: tokensBefore - dropped,
    budget: null,
  };
}

export const windowStrategy: StrategyRules<WindowParams> = {
  name: 'window',
  label: 'Recent window',
  description:
    "Model-free: keeps the first keepFirst conversation turns PLUS the last maxTurns and drops the middle, tool-cycle safe (either end grows to keep a tool call with its result). After OpenHands RecentEventsCondenser, counted differently on purpose: its max_events includes the head (it keeps keep_first + max_events − keep_first events), here maxTurns is the recent part alone, so the kept total is keepFirst + maxTurns (OpenHands' max_events 10 = keepFirst 1 + maxTurns 9). System turns are never dropped nor counted.",
  specs: windowSpecs,
  plan: planWindow,
  view: ({ turns, state }) => droppedCandidates(turns, state),
  live: {
    mayFire: (m, p) => m.viewTurns > p.keepFirst + p.maxTurns,
    // The window is recomputed over the whole session: what its stored ranges leave visible.
    visible: (input) => {
      const ix = buildSpanIndex(input.turns);
      return ix.totalTokens - convTokensInRanges(ix, input.state.droppedRanges ?? []);
    },
    // The window pass (shared/passes/window.ts: planWindow + runDropPass) without the machinery.
    step: (ix, params, state) => {
      // windowCuts' rule without its result object (a window steps before every call).
      if (ix.convCountPrefix[ix.count] <= params.keepFirst + params.maxTurns) return null;
      const headEnd = headEndOf(ix, params);
      const tailStart = tailStartOf(ix, params, ix.convCountPrefix[ix.count]);
      if (headEnd >= tailStart) return null;
      const dropped = convCountIn(ix, headEnd, tailStart);
      if (dropped === 0) return null;
      // The span's first and last conversation turns (system turns at the edges stay), read
      // from the index (a conversation turn raises the count) rather than from the turns.
      const conv = ix.convCountPrefix;
      let first = headEnd;
      while (conv[first + 1] === conv[first]) first++;
      let last = tailStart - 1;
      while (conv[last + 1] === conv[last]) last--;
      const droppedRanges: Array<[number, number]> = [[first, last]];
      return { state: isOnlyField(state, 'droppedRanges') ? { droppedRanges } : { ...state, droppedRanges }, visibleTokens: ix.totalTokens - convTokensIn(ix, headEnd, tailStart) };
    },
    // Everything from the one range and the prefix end: first..last are the edge conversation
    // turns of [headEnd, tailStart), so counts over one equal counts over the other.
    describeStep: (session, end, { state, visibleTokens }) => {
      const ix = buildSpanIndex(session);
      const [first, last] = state.droppedRanges![0];
      const convTotal = ix.convCountPrefix[end];
      const dropped = convCountIn(ix, first, last + 1);
      const reason = dropReason(dropped, convTotal, ix.convCountPrefix[first], convTotal - ix.convCountPrefix[last + 1]);
      return { reason, stats: { reason, turnsDropped: dropped, tokensDropped: convTokensIn(ix, first, last + 1), droppedRanges: state.droppedRanges, plannedTokensAfter: visibleTokens } };
    },
    lines: () => [],
  },
};
