/**
 * What the native strategies `codex` and `claude-code` share: each tool's own automatic
 * compaction as its source or documentation states it (docs/strategies.md cites both).
 *
 * The rule, before each model call:
 * - the context the model would receive, by the variant's context measure
 *   (`readInput(input, tokensBefore)`, shared/usage/measure.ts), is compared with the tool's
 *   line (`threshold(params)`: codex min(limit, 90% of the window); claude-code the window
 *   less the reserved summary output and a buffer); at or over it, it compacts;
 * - a compaction summarizes THE WHOLE HISTORY the model sees (the previous native summary as
 *   prior, every conversation turn since) into ONE summary, which supersedes the previous one;
 *   the cut is the end of the turns before the call, moved earlier to a tool-cycle-safe cut
 *   (a call whose result arrives after the call is never cut from it); it must move forward
 *   over at least one conversation turn, else the pass skips (`nothing_new`);
 * - what stays verbatim before the cut: the system turns (every strategy keeps them) and, for
 *   codex, its recent user messages (`keptUserMessages`: newest first within a token budget,
 *   the first one that does not fit truncated to what is left), placed before the summary as
 *   Codex's `build_compacted_history` places them.
 * A "user message" is a user turn that answers no tool call (tool results are not user messages).
 */
import { blocksToText, turnMetasOf, type TurnMeta } from '../model/turn.js';
import type { ViewInput } from '../replay/candidates.js';
import { summaryCandidate, syntheticAssistant, turnCandidate } from '../replay/candidates.js';
import type { ReplayCandidate } from '../replay/normalize.js';
import type { ExistingSummary, Plan, PlanBoundary, PlanInput, PlanSpan, ProjectedNode, StrategyName, VariantState } from './types.js';
import { buildSpanIndex, convCountIn, convTokensIn, formatCount, makeSpan, safeCutAtOrBefore, type SpanIndex } from './spans.js';
import { describeReading, readInput, type ContextReading } from '../usage/measure.js';

/** The parameters both native strategies read (each adds its own for the threshold). */
export interface NativeCommonParams {
  summaryMaxTokens: number;
  contextMeasure: number;
}

/** One native strategy's own rule: its trigger line and its user-message budget (0: keeps none). */
export interface NativeRule<P extends NativeCommonParams> {
  strategy: Extract<StrategyName, 'codex' | 'claude-code'>;
  threshold(params: P): number;
  keptUserTokens(params: P): number;
  /** How the reason names the line ("auto_compact_token_limit 244,800"). */
  lineLabel(params: P): string;
}

/** A user turn that answers no tool call: what Codex's `collect_user_messages` keeps. */
export const isUserMessage = (m: Pick<TurnMeta, 'role' | 'cycleStart' | 'position'>): boolean => m.role === 'user' && m.cycleStart === m.position;

/** A user message kept before the cut: its position and the tokens of it kept (fewer than its own when truncated). */
export interface KeptUserMessage {
  position: number;
  tokens: number;
  truncated: boolean;
}

/**
 * Codex's selection (`build_compacted_history_with_limit`): the user messages before `cut`,
 * newest first, each kept whole while it fits the remaining budget; the first that does not
 * fit is truncated to the remaining tokens and the selection stops. Oldest first on return.
 */
export function keptUserMessages(turns: readonly TurnMeta[], cut: number, budget: number): KeptUserMessage[] {
  const out: KeptUserMessage[] = [];
  if (budget <= 0) return out;
  let remaining = budget;
  for (let p = Math.min(cut, turns.length) - 1; p >= 0; p--) {
    if (remaining === 0) break;
    const m = turns[p];
    if (!isUserMessage(m)) continue;
    if (m.tokenCount <= remaining) {
      out.push({ position: p, tokens: m.tokenCount, truncated: false });
      remaining -= m.tokenCount;
    } else {
      out.push({ position: p, tokens: remaining, truncated: true });
      break;
    }
  }
  return out.reverse();
}

export const keptTokensOf = (kept: readonly KeptUserMessage[]): number => kept.reduce((a, k) => a + k.tokens, 0);

function prefixEndOf(turns: readonly TurnMeta[], n: number): number {
  let p = 0;
  while (p < n && turns[p].role === 'system') p++;
  return p;
}

/** The live native summary: by the id in state, else the newest uncompacted native one. */
export function liveNativeSummary<S extends Pick<ExistingSummary, 'id' | 'kind' | 'compacted'>>(summaries: readonly S[], id: number | null | undefined): S | null {
  if (id !== null && id !== undefined) {
    const s = summaries.find((x) => x.id === id);
    if (s) return s;
  }
  let best: S | null = null;
  for (const s of summaries) if (s.kind === 'native' && !s.compacted && (!best || s.id > best.id)) best = s;
  return best;
}

/** The cut now: where the state says once a summary exists, else the end of the leading system turns. */
function cutNow(n: number, prefixEnd: number, summary: ExistingSummary | null, state: VariantState): number {
  return summary ? Math.min(n, Math.max(prefixEnd, state.nativeCut ?? summary.lastPosition + 1)) : prefixEnd;
}

/** Tokens the model sees now (transcript units): every turn, less the conversation turns before the cut, plus the summary and the kept user messages. */
export function nativeVisibleTokens(input: Omit<PlanInput<NativeCommonParams>, 'params'>, ix: SpanIndex = buildSpanIndex(input.turns)): number {
  const n = ix.count;
  const prefixEnd = prefixEndOf(input.turns, n);
  const summary = liveNativeSummary(input.summaries, input.state.nativeSummaryId);
  if (!summary) return ix.totalTokens;
  const cut = cutNow(n, prefixEnd, summary, input.state);
  return ix.totalTokens - convTokensIn(ix, prefixEnd, cut) + summary.tokenCount + (input.state.nativeKeptTokens ?? 0);
}

export type NativeSkip = 'below_threshold' | 'nothing_new';

export interface NativeDecision {
  prefixEnd: number;
  currentCut: number;
  currentSummary: ExistingSummary | null;
  reading: ContextReading;
  threshold: number;
  compact: boolean;
  skip: NativeSkip | null;
  /** The new cut (tool-cycle safe), when compacting. */
  newCut: number | null;
  /** The user messages kept before the new cut (codex), oldest first. */
  kept: KeptUserMessage[];
  reason: string;
}

export function decideNative<P extends NativeCommonParams>(rule: NativeRule<P>, input: PlanInput<P>, ix: SpanIndex = buildSpanIndex(input.turns), force = false): NativeDecision {
  const { params, state } = input;
  const n = ix.count;
  const prefixEnd = prefixEndOf(input.turns, n);
  const currentSummary = liveNativeSummary(input.summaries, state.nativeSummaryId);
  const currentCut = cutNow(n, prefixEnd, currentSummary, state);
  const reading = readInput(input, nativeVisibleTokens(input, ix));
  const threshold = rule.threshold(params);
  const base = { prefixEnd, currentCut, currentSummary, reading, threshold };
  if (!force && reading.tokens < threshold) {
    return { ...base, compact: false, skip: 'below_threshold', newCut: null, kept: [], reason: `below_threshold: context ${describeReading(reading)} < ${rule.lineLabel(params)}` };
  }
  const cut = safeCutAtOrBefore(ix, n);
  if (cut <= currentCut || convCountIn(ix, currentCut, cut) === 0) {
    return { ...base, compact: false, skip: 'nothing_new', newCut: null, kept: [], reason: `nothing_new: no conversation turn between the last compaction (${currentCut}) and the last tool-cycle-safe cut (${cut})` };
  }
  const kept = keptUserMessages(input.turns, cut, rule.keptUserTokens(params));
  const why = force && reading.tokens < threshold ? `forced by the caller (context ${describeReading(reading)})` : `context ${describeReading(reading)} >= ${rule.lineLabel(params)}`;
  const keptText = kept.length > 0 ? `; ${kept.length} user message(s) kept (${formatCount(keptTokensOf(kept))} tokens)` : '';
  return { ...base, compact: true, skip: null, newCut: cut, kept, reason: `${why}; the whole history up to ${cut} becomes one summary${keptText}` };
}

/** The plan: one span from the current cut to the new one, with the previous summary as prior. */
export function planNative<P extends NativeCommonParams>(rule: NativeRule<P>, input: PlanInput<P>): Plan<P> {
  const { turns, summaries, params } = input;
  const ix = buildSpanIndex(turns);
  const d = decideNative(rule, input, ix);
  // The span a pass would write, whether the trigger fires or the caller forces it (compactOutcome says which).
  const work = d.compact ? d : decideNative(rule, input, ix, true);
  const tokensBefore = nativeVisibleTokens(input, ix);
  const spans: PlanSpan[] = [];
  let tokensAfter = tokensBefore;
  if (work.compact && work.newCut !== null) {
    const span = makeSpan(turns, ix, { id: 'p0', purpose: 'native', from: work.currentCut, to: work.newCut, targetTokens: params.summaryMaxTokens, priorSummaryId: work.currentSummary?.id ?? null });
    if (span) {
      spans.push(span);
      tokensAfter = tokensBefore - span.tokens - (work.currentSummary?.tokenCount ?? 0) - (input.state.nativeKeptTokens ?? 0) + keptTokensOf(work.kept) + params.summaryMaxTokens;
    }
  }
  const boundaries: PlanBoundary[] = [{ kind: 'prefix-end', position: d.prefixEnd, label: `stable prefix: ${d.prefixEnd} system turn(s)` }];
  boundaries.push({ kind: 'watermark', position: work.newCut ?? d.currentCut, label: work.newCut !== null ? `compacted up to ${work.newCut} after this pass` : `compacted up to ${d.currentCut}` });
  const nodes: ProjectedNode[] = summaries
    .filter((s) => s.kind === 'native')
    .map((s) => ({ id: `s${s.id}`, depth: s.depth, projected: false, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted || (spans.length > 0 && s.id === d.currentSummary?.id) }));
  const edges: Array<{ source: string; target: string }> = [];
  for (const sp of spans) {
    nodes.push({ id: sp.id, depth: d.currentSummary ? d.currentSummary.depth + 1 : 0, projected: true, firstPosition: d.currentSummary ? Math.min(d.currentSummary.firstPosition, sp.firstPosition) : sp.firstPosition, lastPosition: sp.lastPosition, tokens: sp.targetTokens, compacted: false });
    if (d.currentSummary) edges.push({ source: sp.id, target: `s${d.currentSummary.id}` });
  }
  return {
    strategy: rule.strategy,
    params,
    trigger: { compact: d.compact && spans.length > 0, reason: d.reason, pressure: d.threshold > 0 ? d.reading.tokens / d.threshold : undefined, level: d.compact ? 'hard' : 'none' },
    boundaries,
    spans,
    condense: [],
    dag: { nodes, edges },
    tokensBefore,
    tokensAfter,
    budget: rule.threshold(params),
  };
}

/** The text a truncated kept user message carries: its head, then Codex's kind of marker. */
export function truncatedUserText(text: string, keptTokens: number, tokens: number): string {
  if (tokens <= 0 || keptTokens >= tokens) return text;
  const chars = Math.floor((text.length * keptTokens) / tokens);
  return `${text.slice(0, chars)}…${tokens - keptTokens} tokens truncated…`;
}

/**
 * The view after a native compaction: the system turns before the cut, the kept user messages
 * (codex; the truncated one cut to its kept share), the summary as one user message in the
 * tool's own words (`summaryText`), an assistant glue turn when the next kept turn is the
 * user's, then every turn from the cut on.
 */
export function nativeCandidates(input: ViewInput, keptBudget: number, summaryText: (text: string) => string): ReplayCandidate[] {
  const { turns, summaries, state } = input;
  const summary = liveNativeSummary(summaries, state.nativeSummaryId);
  const cut = state.nativeCut;
  if (!summary || cut === undefined) return turns.map((t) => turnCandidate(t));
  const out: ReplayCandidate[] = [];
  for (const t of turns.slice(0, cut)) if (t.role === 'system') out.push(turnCandidate(t));
  // Array indices are positions (the view gets every turn of the session).
  const kept = keptBudget > 0 ? keptUserMessages(turnMetasOf(turns), cut, keptBudget) : [];
  for (const k of kept) {
    const t = turns[k.position];
    if (!k.truncated) out.push(turnCandidate(t));
    else out.push(turnCandidate(t, [{ type: 'text', text: truncatedUserText(blocksToText(t.blocks), k.tokens, t.tokenCount) }]));
  }
  out.push(summaryCandidate(summary.id, summaryText(summary.text)));
  const rest = turns.slice(cut);
  const firstConversational = rest.find((t) => t.role !== 'system');
  if (firstConversational && firstConversational.role !== 'assistant') out.push(syntheticAssistant(NATIVE_GLUE));
  for (const t of rest) out.push(turnCandidate(t));
  return out;
}

/** The assistant turn after a native summary when the next kept turn is the user's (the message list must alternate). */
export const NATIVE_GLUE = 'Understood. I will continue from the summary above.';
