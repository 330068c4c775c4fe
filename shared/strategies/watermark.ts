/**
 * Strategy `watermark`: one forward-only watermark over the session (the session
 * compaction spec, design version 1). Each pass summarizes the turns between the current
 * watermark and the new one into ONE synthetic user turn
 * `<COMPACTION_SUMMARY model=... watermark=...>…</COMPACTION_SUMMARY>` (the view,
 * shared/replay/candidates.ts); version 1 never re-summarizes its own summaries: they
 * accumulate, one per pass, in order. The last `preserveRecentTurns` turns are never
 * summarized.
 *
 * Trigger, on the pending tokens = conversation tokens between the watermark (the stable
 * prefix before the first pass) and the preserved recent turns, counted by the variant's
 * context measure (shared/usage/measure.ts `measurePart`: transcript tokens, or × the
 * session's tokenizer ratio when calibrated; the fixed overhead is not part of a stretch):
 * - pending >= hardCapTokens: compact, even when the cost budget is spent (then the run
 *   carries the failure mode `budget_exhausted_forced`);
 * - pending >= softThresholdTokens: compact if the budget allows (spentUsd <
 *   maxCostPerSessionUsd; spending is known only after a call, so the check is on what
 *   was spent so far), else skip with `budget_exhausted`;
 * - else skip.
 * Span: from the prefix end to the new watermark = (message count − preserveRecentTurns),
 * moved EARLIER to the nearest tool-cycle-safe cut so a tool_use is never separated from
 * its tool_result; when no safe cut lies beyond the current watermark: skip with
 * `no_valid_boundary`. The span is [watermark, new watermark): only turns no summary
 * covers yet; the earlier summaries stay as they are (version 2 of the design, which
 * re-summarizes the previous summary into the new one, is not implemented).
 *
 * Counting conventions (shared with every planner, see spans.ts): message counts and
 * tokens are over conversation (non-system) turns; system turns are never summarized.
 */
import { withLazy } from '../lazy.js';
import type { ParamSpec } from './params.js';
import { preMaskSpec } from './mask-stage.js';
import { contextMeasureSpec } from './measure-spec.js';
import type { StrategyRules } from './strategy.js';
import { watermarkCandidates } from '../replay/candidates.js';
import type { ExistingSummary, Plan, PlanBoundary, PlanInput, PlanSpan, ProjectedNode, VariantState } from './types.js';
import type { TurnMeta } from '../model/turn.js';
import { describePart, measureChoiceOf, measurePart } from '../usage/measure.js';
import { buildSpanIndex, convCountIn, convTokensIn, formatCount, makeSpan, positionOfConvTurn, safeCutAtOrAfter, safeCutAtOrBefore, type SpanIndex } from './spans.js';

export type WatermarkParams = {
  softThresholdTokens: number;
  hardCapTokens: number;
  preserveRecentTurns: number;
  maxCostPerSessionUsd: number;
  summaryMaxTokens: number;
};

export const watermarkSpecs: readonly ParamSpec[] = [
  { name: 'softThresholdTokens', label: 'Soft threshold', default: 30000, min: 0, max: null, sliderMax: 200000, step: 1000, kind: 'int', unit: 'tokens', doc: 'Pending tokens (by the context measure: transcript tokens, or × the tokenizer ratio when calibrated) at which a compaction runs if the cost budget allows. Default 30,000 (the session compaction spec).' },
  { name: 'hardCapTokens', label: 'Hard cap', default: 80000, min: 1, max: null, sliderMax: 400000, step: 1000, kind: 'int', unit: 'tokens', doc: 'Pending tokens at which a compaction runs even when the budget is spent (budget_exhausted_forced), and under which a failed summarizer leaves things alone. Default 80,000 (the session compaction spec).' },
  { name: 'preserveRecentTurns', label: 'Preserve recent', default: 5, min: 0, max: null, sliderMax: 100, step: 1, kind: 'int', unit: 'turns', doc: 'The most recent turns, never summarized. Default 5 (the session compaction spec).' },
  { name: 'maxCostPerSessionUsd', label: 'Cost budget', default: 0.2, min: 0, max: null, sliderMax: 5, step: 0.01, kind: 'float', unit: 'USD', doc: 'Summarizer spending allowed per session variant (prices in shared/cost/prices.ts; an unlisted model costs 0); over it, only the hard cap compacts. Default 0.20 (the session compaction spec).' },
  { name: 'summaryMaxTokens', label: 'Summary size', default: 2000, min: 64, max: null, sliderMax: 16000, step: 100, kind: 'int', unit: 'tokens', doc: 'Target (maximum) size of the compaction summary. Default 2,000: the session compaction spec leaves it open; 2,000 is the cap the dag and rolling summaries use here, about 7% of the soft threshold.' },
  preMaskSpec,
  contextMeasureSpec,
];

export type WatermarkSkip = 'below_soft_threshold' | 'budget_exhausted' | 'no_valid_boundary' | 'nothing_new';

/** Everything the planner decided, for the pass (the plan is the renderer's view of it). */
export interface WatermarkDecision {
  /** First position after the leading system turns. */
  prefixEnd: number;
  /** First position of the preserved recent turns. */
  tailStart: number;
  /** The watermark now (prefixEnd when nothing was compacted yet). */
  currentWatermark: number;
  currentSummary: ExistingSummary | null;
  /** Pending tokens by the context measure: what the thresholds are compared with. */
  pendingTokens: number;
  /** The same stretch in transcript tokens. */
  pendingTranscriptTokens: number;
  level: 'none' | 'soft' | 'hard';
  budgetSpent: boolean;
  compact: boolean;
  skip: WatermarkSkip | null;
  /** Compacting at the hard cap although the budget is spent. */
  forced: boolean;
  /** The new watermark (a safe cut), when compacting. */
  newWatermark: number | null;
  /** The largest safe cut <= tailStart (the candidate watermark), whether or not it moves forward. */
  candidateWatermark: number;
  reason: string;
}

/** The summaries the model sees, oldest first (version 1: every uncompacted one, one per pass). */
export function liveWatermarkSummaries<S extends Pick<ExistingSummary, 'kind' | 'compacted' | 'firstPosition' | 'id'>>(summaries: readonly S[]): S[] {
  return summaries.filter((x) => x.kind === 'watermark' && !x.compacted).sort((a, b) => a.firstPosition - b.firstPosition || a.id - b.id);
}

/** The summary the watermark stands on: by the id in state, else the newest uncompacted watermark summary. */
export function currentWatermarkSummary(summaries: readonly ExistingSummary[], id: number | null | undefined): ExistingSummary | null {
  if (id !== null && id !== undefined) {
    const s = summaries.find((x) => x.id === id);
    if (s) return s;
  }
  let best: ExistingSummary | null = null;
  for (const s of summaries) if (s.kind === 'watermark' && !s.compacted && (!best || s.id > best.id)) best = s;
  return best;
}

const fmt = formatCount;

/** First position after the leading system turns. */
function stablePrefixEnd(turns: readonly TurnMeta[], n: number): number {
  let prefixEnd = 0;
  while (prefixEnd < n && turns[prefixEnd].role === 'system') prefixEnd++;
  return prefixEnd;
}

/** The watermark now: where the current summary's state says, prefixEnd when nothing was compacted yet. */
function watermarkNow(n: number, prefixEnd: number, currentSummary: ExistingSummary | null, state: VariantState): number {
  return Math.min(n, Math.max(prefixEnd, currentSummary ? (state.watermark ?? currentSummary.lastPosition + 1) : prefixEnd));
}

/**
 * Tokens the model sees now (the plan's tokensBefore): every turn, less the conversation
 * turns behind the watermark, plus the live summaries. The live replay asks it after each
 * firing (live.visible), without the plan's nodes and labels.
 */
export function watermarkVisibleTokens(input: Omit<PlanInput<WatermarkParams>, 'params'>, ix: SpanIndex = buildSpanIndex(input.turns)): number {
  const { summaries, state } = input;
  const n = ix.count;
  const prefixEnd = stablePrefixEnd(input.turns, n);
  const currentWatermark = watermarkNow(n, prefixEnd, currentWatermarkSummary(summaries, state.watermarkSummaryId), state);
  // The live summaries' tokens (whole numbers: their sum does not depend on the order).
  let summaryTokens = 0;
  for (const x of summaries) if (x.kind === 'watermark' && !x.compacted) summaryTokens += x.tokenCount;
  return ix.totalTokens - convTokensIn(ix, prefixEnd, currentWatermark) + summaryTokens;
}

/** The trigger and boundary decision. `force` (the engine's "compact now") skips the thresholds, never the boundary rule. */
export function decideWatermark(input: PlanInput<WatermarkParams>, ix: SpanIndex = buildSpanIndex(input.turns), force = false): WatermarkDecision {
  const { summaries, state, params } = input;
  const n = ix.count;
  const prefixEnd = stablePrefixEnd(input.turns, n);
  const convTotal = ix.convCountPrefix[n];
  const tailStart = Math.max(prefixEnd, positionOfConvTurn(ix, Math.max(0, convTotal - params.preserveRecentTurns)));
  const currentSummary = currentWatermarkSummary(summaries, state.watermarkSummaryId);
  const currentWatermark = watermarkNow(n, prefixEnd, currentSummary, state);
  // Version 1: the summaries are never re-compacted, so they are not pending.
  const pendingTranscriptTokens = tailStart > currentWatermark ? convTokensIn(ix, currentWatermark, tailStart) : 0;
  const pendingTokens = measurePart(input.measure, pendingTranscriptTokens);
  const level: WatermarkDecision['level'] = pendingTokens >= params.hardCapTokens ? 'hard' : pendingTokens >= params.softThresholdTokens ? 'soft' : 'none';
  const spent = state.spentUsd ?? 0;
  const budgetSpent = spent >= params.maxCostPerSessionUsd;
  const candidateWatermark = safeCutAtOrBefore(ix, tailStart);
  // The reason is text only a plan or a firing record reads: written on first read (a live
  // replay decides before every call near the threshold and skips most of those).
  const decision = (compact: boolean, skip: WatermarkSkip | null, forced: boolean, newWatermark: number | null, describe: () => string): WatermarkDecision =>
    // An own enumerable lazy field (shared/lazy.ts): spreads, JSON and deep equality see the text.
    withLazy<WatermarkDecision, 'reason'>({ prefixEnd, tailStart, currentWatermark, currentSummary, pendingTokens, pendingTranscriptTokens, level, budgetSpent, candidateWatermark, compact, skip, forced, newWatermark }, 'reason', describe);
  const skip = (why: WatermarkSkip, reason: () => string): WatermarkDecision => decision(false, why, false, null, () => `${why}: ${reason()}`);

  const pendingText = () => `pending ${describePart(input.measure, pendingTranscriptTokens)}`;
  if (!force && level === 'none') return skip('below_soft_threshold', () => `${pendingText()} < soft threshold ${fmt(params.softThresholdTokens)}`);
  if (!force && level === 'soft' && budgetSpent) {
    return skip('budget_exhausted', () => `${pendingText()} >= soft threshold, but $${spent.toFixed(4)} of the $${params.maxCostPerSessionUsd.toFixed(2)} budget is spent (under the hard cap ${fmt(params.hardCapTokens)})`);
  }
  if (tailStart <= currentWatermark || convCountIn(ix, currentWatermark, tailStart) === 0) return skip('nothing_new', () => `no turns between the watermark (${currentWatermark}) and the preserved turns`);
  if (candidateWatermark <= currentWatermark || convCountIn(ix, currentWatermark, candidateWatermark) === 0) {
    return skip('no_valid_boundary', () => `no tool-cycle-safe cut between the watermark (${currentWatermark}) and the preserved turns (${tailStart}): a tool cycle spans them`);
  }
  const forced = level === 'hard' && budgetSpent;
  return decision(true, null, forced, candidateWatermark, () => {
    let why: string;
    if (forced) why = `budget_exhausted_forced: ${pendingText()} >= hard cap ${fmt(params.hardCapTokens)} although $${spent.toFixed(4)} of the $${params.maxCostPerSessionUsd.toFixed(2)} budget is spent`;
    else if (level === 'hard') why = `${pendingText()} >= hard cap ${fmt(params.hardCapTokens)}`;
    else if (level === 'soft') why = `${pendingText()} >= soft threshold ${fmt(params.softThresholdTokens)}, $${spent.toFixed(4)} of the $${params.maxCostPerSessionUsd.toFixed(2)} budget spent`;
    else why = `forced by the caller (${pendingText()})`;
    const moved = candidateWatermark < tailStart ? ` (moved back ${convCountIn(ix, candidateWatermark, tailStart)} turn(s) to keep a tool cycle whole)` : '';
    return `${why}; watermark ${currentWatermark} -> ${candidateWatermark}${moved}`;
  });
}

/**
 * The truncation fallback's cut (summarizer failed at the hard cap): the smallest safe cut
 * b in (currentWatermark, newWatermark] that brings pending tokens under the hard cap,
 * keeping `keptSummaryTokens` for what stays of the summary; newWatermark when none does.
 */
export function truncationCut(ix: SpanIndex, d: WatermarkDecision, keptSummaryTokens: number, hardCapTokens: number): number {
  const limit = d.newWatermark ?? d.candidateWatermark;
  const allowance = hardCapTokens - keptSummaryTokens; // conv tokens of [b, tailStart) must stay < allowance
  const end = ix.convTokenPrefix[d.tailStart];
  // smallest b with end - prefix[b] < allowance, i.e. prefix[b] > end - allowance (prefix is non-decreasing).
  let lo = d.currentWatermark + 1;
  let hi = limit;
  if (lo > hi) return limit;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ix.convTokenPrefix[mid] > end - allowance) hi = mid;
    else lo = mid + 1;
  }
  return Math.min(limit, safeCutAtOrAfter(ix, lo));
}

/**
 * The preserved turns as the pass leaves them: the last `preserveRecentTurns` conversation
 * turns, more when the watermark stops earlier to keep a tool cycle whole (those turns stay
 * too). The marker stands where the preserved turns start, so the count it says is the count
 * of turns drawn under it (a grown tail starts at the watermark, not at the asked tail).
 */
function preservedTail(ix: SpanIndex, d: WatermarkDecision, asked: number): PlanBoundary {
  const end = ix.count;
  const stop = d.newWatermark ?? (d.candidateWatermark > d.currentWatermark ? d.candidateWatermark : d.tailStart);
  const kept = convCountIn(ix, Math.min(stop, d.tailStart), end);
  const available = convCountIn(ix, d.prefixEnd, end);
  if (kept > asked && kept > Math.min(asked, available) && stop < d.tailStart) {
    return { kind: 'preserved-tail', position: stop, label: `last ${kept} turns preserved (${asked} asked, grown to keep a tool call with its result)` };
  }
  return { kind: 'preserved-tail', position: d.tailStart, label: `last ${convCountIn(ix, d.tailStart, end)} turns preserved` };
}

export function planWatermark(input: PlanInput<WatermarkParams>): Plan<WatermarkParams> {
  const { turns, summaries, params } = input;
  const ix = buildSpanIndex(turns);
  const d = decideWatermark(input, ix);
  const tokensBefore = watermarkVisibleTokens(input, ix);

  const boundaries: PlanBoundary[] = [
    { kind: 'prefix-end', position: d.prefixEnd, label: `stable prefix: ${d.prefixEnd} system turn(s)` },
    { kind: 'watermark', position: d.newWatermark ?? d.currentWatermark, label: d.newWatermark !== null ? `watermark after this pass: ${d.newWatermark}` : `watermark: ${d.currentWatermark}` },
    preservedTail(ix, d, params.preserveRecentTurns),
  ];
  const nodes: ProjectedNode[] = summaries.map((s) => ({ id: `s${s.id}`, depth: s.depth, projected: false, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted }));
  const edges: Array<{ source: string; target: string }> = [];
  for (const s of summaries) for (const c of s.childIds) edges.push({ source: `s${s.id}`, target: `s${c}` });

  const spans: PlanSpan[] = [];
  let tokensAfter = tokensBefore;
  if (d.compact && d.newWatermark !== null) {
    const span = makeSpan(turns, ix, { id: 'p0', purpose: 'watermark', from: d.currentWatermark, to: d.newWatermark, targetTokens: params.summaryMaxTokens, priorSummaryId: null });
    if (span) {
      spans.push(span);
      const projected = Math.min(params.summaryMaxTokens, span.tokens);
      tokensAfter = tokensBefore - span.tokens + projected;
      nodes.push({ id: 'p0', depth: 0, projected: true, firstPosition: span.firstPosition, lastPosition: span.lastPosition, tokens: projected, compacted: false });
    }
  }
  return {
    strategy: 'watermark',
    params,
    trigger: { compact: spans.length > 0, reason: d.reason, pressure: d.pendingTokens / params.hardCapTokens, level: d.level },
    boundaries,
    spans,
    condense: [],
    dag: { nodes, edges },
    tokensBefore,
    tokensAfter,
    budget: params.hardCapTokens,
  };
}

export const watermarkStrategy: StrategyRules<WatermarkParams> = {
  name: 'watermark',
  label: 'Watermark',
  prompts: ['watermark'],
  description:
    'A forward-only watermark: when the tokens between the system prefix and the last preserveRecentTurns turns pass the soft threshold (budget permitting) or the hard cap (always), everything up to the watermark becomes one <COMPACTION_SUMMARY> user turn. Tool cycles are never split; a failing summarizer at the hard cap falls back to truncation. Follows the session compaction spec.',
  specs: watermarkSpecs,
  plan: planWatermark,
  view: ({ turns, summaries, state }) => watermarkCandidates(turns, liveWatermarkSummaries(summaries), state.watermark),
  live: {
    // The plan's tokensBefore, without the plan.
    visible: (input) => watermarkVisibleTokens(input),
    // Pending tokens lie between the watermark and the preserved tail, so they never exceed the
    // conversation tokens since the watermark, tail included (measured alike); past a spent
    // budget only the hard cap fires. A bound on what is there now, at every call (the
    // reference replay, shared/replay/reference/watermark.ts, holds it to the rule).
    mayFire: (m, p, state) => {
      const since = m.convTokenPrefix[m.end] - m.convTokenPrefix[Math.min(m.end, state.watermark ?? 0)];
      return measurePart(m.measure, since) >= ((state.spentUsd ?? 0) >= p.maxCostPerSessionUsd ? p.hardCapTokens : Math.min(p.softThresholdTokens, p.hardCapTokens));
    },
    lines: (p) => [
      // Thresholds on the pending stretch, drawn on the context's scale for reference.
      { label: `soft threshold (pending tokens, ${measureChoiceOf(p)})`, tokens: p.softThresholdTokens },
      { label: `hard cap (pending tokens, ${measureChoiceOf(p)})`, tokens: p.hardCapTokens },
    ],
  },
};
