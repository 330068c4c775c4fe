/**
 * Strategy `rolling`: one rolling summary plus a pointer on the session (the rolling-summary
 * design: a summary text and `pointer` = how many non-system turns are already summarized).
 *
 * A call, exactly as the rolling-summary design states it (all lengths are CHARACTERS):
 *   uncompacted = the non-system turns from the pointer;
 *   total  = summary length + uncompacted characters;
 *   target = floor(total × compactionCount / 100);
 *   collect turns from the start of the uncompacted ones until their length reaches the
 *   target (the turn that crosses it is included); summarize existing summary + batch into
 *   the new summary; advance the pointer by the number of collected non-system turns.
 *   Nothing new, an empty target or nothing collected: "already up to date", no call.
 *
 * Tool cycles (our addition, the design counts plain messages): when the crossing turn leaves
 * a tool_use whose tool_result comes later, the batch is extended to the next
 * tool-cycle-safe cut, i.e. the result turn(s) are collected too. The pointer therefore
 * never stops inside a tool cycle, and the replay never shows a result without its call.
 *
 * Consequence the design points out (and the tests check): a second call compacts fewer
 * turns, because the summary is shorter than the turns it replaced, so `total` shrinks.
 *
 * What the model sees: system turns, a user turn `[Summary of previous conversation]`
 * with the summary, an assistant turn acknowledging it, then the turns from the pointer.
 */
import type { ParamSpec } from './params.js';
import { preMaskSpec } from './mask-stage.js';
import { contextMeasureSpec } from './measure-spec.js';
import { measureChoiceOf } from '../usage/measure.js';
import { ParamError } from './params.js';
import type { StrategyRules } from './strategy.js';
import { rollingCandidates } from '../replay/candidates.js';
import type { ExistingSummary, Plan, PlanBoundary, PlanInput, PlanSpan, ProjectedNode } from './types.js';
import { buildSpanIndex, convCharsIn, convCountIn, convTokensIn, firstCutReaching, isSafeCut, makeSpan, positionOfConvTurn, safeCutAtOrAfter, safeCutAtOrBefore } from './spans.js';

export type RollingParams = { compactionCount: number };
/** With the live replay's trigger (the planner itself never reads it: the design is manual). */
export type RollingLiveParams = RollingParams & { replayTriggerTokens: number };

/**
 * Upper bound of the rolling summary size in tokens. The design gives no size; we ask for at
 * most a quarter of the input (old summary + batch), capped at 2,000 tokens (the same cap
 * as a dag condensed summary), so the summary stays shorter than what it replaces.
 */
export const ROLLING_SUMMARY_MAX_TOKENS = 2000;

export const rollingSpecs: readonly ParamSpec[] = [
  {
    name: 'compactionCount',
    label: 'Compaction count',
    default: 50,
    min: 1,
    max: 99,
    step: 1,
    kind: 'percent',
    unit: '%',
    doc: 'Share of (summary + uncompacted characters) folded into the summary per call, 1-99 (out of range is an error). Default 50 (the rolling-summary design).',
  },
  {
    name: 'replayTriggerTokens',
    label: 'Replay trigger',
    default: 150000,
    min: 1000,
    max: null,
    sliderMax: 1000000,
    step: 1000,
    kind: 'int',
    unit: 'tokens',
    doc: 'The rolling design is manual (the user asks for a compaction); a live replay calls it whenever the context (with overhead) reaches this many tokens. Default 150,000: the dag default trigger (0.75 × 200,000), so the two compare at the same pressure. Not used by Compact.',
  },
  preMaskSpec,
  contextMeasureSpec,
];

/** Target size of the new rolling summary (see ROLLING_SUMMARY_MAX_TOKENS). */
export function rollingTargetTokens(priorTokens: number, batchTokens: number): number {
  return Math.max(1, Math.min(ROLLING_SUMMARY_MAX_TOKENS, Math.ceil((priorTokens + batchTokens) / 4)));
}

/** The current rolling summary of the state, if it still exists. */
export function currentRollingSummary(summaries: readonly ExistingSummary[], id: number | null | undefined): ExistingSummary | null {
  if (id === null || id === undefined) return null;
  return summaries.find((s) => s.id === id) ?? null;
}

export function planRolling(input: PlanInput<RollingParams>): Plan<RollingParams> {
  const { turns, summaries, state, params } = input;
  const pctValue = params.compactionCount;
  // resolveParams already rejects these; planners can also be called directly (previews, tests).
  if (!Number.isInteger(pctValue) || pctValue < 1 || pctValue > 99) throw new ParamError(`parameter compactionCount must be between 1 and 99, got ${pctValue}`);

  const ix = buildSpanIndex(turns);
  const n = ix.count;
  const pointer = Math.max(0, state.pointer ?? 0);
  const pointerPos = positionOfConvTurn(ix, pointer);
  const summary = currentRollingSummary(summaries, state.rollingSummaryId);
  const summaryChars = summary ? summary.charCount : 0;
  const summaryTokens = summary ? summary.tokenCount : 0;

  const uncompactedCount = convCountIn(ix, pointerPos, n);
  const uncompactedChars = convCharsIn(ix, pointerPos, n);
  const total = summaryChars + uncompactedChars;
  const target = Math.floor((total * pctValue) / 100);
  const systemTokens = ix.totalTokens - ix.convTokenPrefix[n];
  const tokensBefore = systemTokens + summaryTokens + convTokensIn(ix, pointerPos, n);

  const boundaries: PlanBoundary[] = [{ kind: 'pointer', position: pointerPos, label: `pointer: ${pointer} turns summarized` }];
  const nodes: ProjectedNode[] = summaries.map((s) => ({ id: `s${s.id}`, depth: s.depth, projected: false, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted }));
  const edges: Array<{ source: string; target: string }> = [];
  for (const s of summaries) for (const c of s.childIds) edges.push({ source: `s${s.id}`, target: `s${c}` });

  const upToDate = (why: string): Plan<RollingParams> => ({
    strategy: 'rolling',
    params,
    trigger: { compact: false, reason: `already up to date: ${why}` },
    boundaries,
    spans: [],
    condense: [],
    dag: { nodes, edges },
    tokensBefore,
    tokensAfter: tokensBefore,
    budget: null,
  });
  if (uncompactedCount === 0) return upToDate('nothing new since the pointer');
  if (target <= 0) return upToDate(`empty target (floor(${total} × ${pctValue}%) = 0)`);

  // "until their length reaches the target, the crossing turn included", then keep tool cycles whole.
  const crossingCut = firstCutReaching(ix.convCharPrefix, pointerPos, n, target);
  // Extended to the next safe cut; when that lies after the turns there are (a call still
  // open, answered later), the batch stops before the open call instead.
  const after = safeCutAtOrAfter(ix, crossingCut);
  const cut = isSafeCut(ix, after) ? after : safeCutAtOrBefore(ix, crossingCut);
  if (cut <= pointerPos) return upToDate('nothing collected: a tool call still open at this call holds the batch');
  const batchTokens = convTokensIn(ix, pointerPos, cut);
  const span: PlanSpan | null = makeSpan(turns, ix, {
    id: 'p0',
    purpose: 'rolling',
    from: pointerPos,
    to: cut,
    targetTokens: rollingTargetTokens(summaryTokens, batchTokens),
    priorSummaryId: summary ? summary.id : null,
  });
  if (!span) return upToDate('nothing collected');

  const collected = convCountIn(ix, span.firstPosition, span.lastPosition + 1);
  const extended = cut > crossingCut ? `, extended by ${convCountIn(ix, crossingCut, cut)} turn(s) to keep a tool cycle whole` : '';
  boundaries.push({ kind: 'pointer', position: cut, label: `pointer after this call: ${pointer + collected} turns summarized` });
  const projectedTokens = Math.min(span.targetTokens, summaryTokens + batchTokens);
  nodes.push({ id: 'p0', depth: summary ? summary.depth + 1 : 0, projected: true, firstPosition: summary ? Math.min(summary.firstPosition, span.firstPosition) : span.firstPosition, lastPosition: span.lastPosition, tokens: projectedTokens, compacted: false });
  if (summary) {
    edges.push({ source: 'p0', target: `s${summary.id}` });
    const old = nodes.find((x) => x.id === `s${summary.id}`);
    if (old) old.compacted = true;
  }
  return {
    strategy: 'rolling',
    params,
    trigger: {
      compact: true,
      reason: `collect ${collected} turns (${span.chars} chars) to reach target ${target} = floor((${summaryChars} summary + ${uncompactedChars} uncompacted chars) × ${pctValue}%)${extended}`,
    },
    boundaries,
    spans: [span],
    condense: [],
    dag: { nodes, edges },
    tokensBefore,
    tokensAfter: tokensBefore - summaryTokens - batchTokens + projectedTokens,
    budget: null,
  };
}

export const rollingStrategy: StrategyRules<RollingLiveParams> = {
  name: 'rolling',
  label: 'Rolling summary',
  prompts: ['rolling'],
  fallbackLadder: false, // the rolling design: an empty summary is an error
  description:
    'One running summary and a pointer: each call folds compactionCount% of (summary + uncompacted characters) worth of the oldest uncompacted turns into a new summary. Follows the rolling-summary design.',
  specs: rollingSpecs,
  plan: (input) => ({ ...planRolling(input), params: input.params }),
  view: ({ turns, summaries, state }) => rollingCandidates(turns, summaries, state),
  live: {
    mayFire: (m, p) => m.contextTokens >= p.replayTriggerTokens,
    lines: (p) => [{ label: `replay trigger (context, ${measureChoiceOf(p)})`, tokens: p.replayTriggerTokens }],
    note: 'The rolling design is manual (the user compacts); a replay fires it whenever the context reaches replayTriggerTokens.',
  },
};
