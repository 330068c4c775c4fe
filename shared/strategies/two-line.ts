/**
 * Strategy `two-line`: compaction between turns with two pressure lines (the
 * compaction-between-turns design). pressure = the tokens the model sees now / contextWindow.
 * - Below warningPct: nothing.
 * - warningPct up to emergencyPct: schedule a BACKGROUND pass.
 * - At or above emergencyPct (agent profile): write a model-free DIGEST (the extractive
 *   summarizer, no model call) of everything before the last `keepLast` turns NOW, and
 *   schedule the background pass to upgrade it. The ordinary-conversation profile writes
 *   the model summary right away instead (no digest).
 *
 * One summary row per pass: the model sees at most ONE two-line summary, which stands for
 * the whole history before the kept window. A pass's row continues the previous one: the
 * digest is the extractive summary of (previous summary + the new turns); the model
 * summary summarizes the new turns in chunks of about `chunkChars` (`concurrency` at
 * once, the shared chunk rule of spans.ts `chunkRange`) and folds them, with the previous
 * model summary as prior, into one text. "Upgraded in place" respects the store's
 * immutability: the upgrade is a NEW row that supersedes the digest (the digest is marked
 * `compacted`, never updated or deleted; see docs/ARCHITECTURE.md). The background pass
 * runs when a digest awaits its upgrade or at least `minBatch` turns beyond the kept
 * window are not summarized yet.
 *
 * A nonsense line pair (warning >= emergency, or either outside 0-100) falls back to
 * 50/80, which the plan's reason says; it is not an error. (Negative values are refused
 * by the parameter resolver, whose minimum is 0 so the window's slider stays usable.)
 * The kept window's start moves EARLIER to a tool-cycle-safe cut, so the kept turns never
 * begin with a tool_result whose call was summarized.
 *
 * Profiles (`profile`): 0 = agent (digest at the emergency line, keepLast 40), 1 =
 * ordinary conversation (model summary right away, keepLast 6). `keepLast` -1 (the
 * default) takes the profile's; any other value overrides it.
 * Counting conventions as everywhere (spans.ts): system turns are never summarized.
 */
import { withLazy } from '../lazy.js';
import type { ParamSpec } from './params.js';
import { preMaskSpec } from './mask-stage.js';
import { contextMeasureSpec } from './measure-spec.js';
import type { StrategyRules } from './strategy.js';
import { coverCandidates } from '../replay/candidates.js';
import type { ExistingSummary, Plan, PlanBoundary, PlanInput, PlanSpan, ProjectedNode } from './types.js';
import { buildSpanIndex, convCountIn, convTokensIn, formatCount, positionOfConvTurn, safeCutAtOrBefore, type SpanIndex } from './spans.js';
import type { TurnMeta } from '../model/turn.js';
import { describeReading, measureChoiceOf, readInput } from '../usage/measure.js';

export type TwoLineParams = {
  warningPct: number;
  emergencyPct: number;
  contextWindow: number;
  profile: number;
  keepLast: number;
  minBatch: number;
  chunkChars: number;
  concurrency: number;
};

/** The lines used when the given pair is nonsense. */
export const DEFAULT_WARNING_PCT = 50;
export const DEFAULT_EMERGENCY_PCT = 80;
/** `profile` values. */
export const AGENT_PROFILE = 0;
export const ORDINARY_PROFILE = 1;
/** The compaction-between-turns design's keepLast for an agent session and for an "ordinary" (non-agent) conversation. */
export const AGENT_PROFILE_KEEP_LAST = 40;
export const ORDINARY_PROFILE_KEEP_LAST = 6;
/** `keepLast` value meaning "the profile's". */
export const PROFILE_KEEP_LAST = -1;

export const twoLineSpecs: readonly ParamSpec[] = [
  { name: 'warningPct', label: 'Warning line', default: 50, min: 0, max: null, sliderMax: 100, step: 1, kind: 'percent', unit: '% of window', doc: 'Pressure at which a background pass is scheduled. Default 50 (the compaction-between-turns design). A nonsense pair (warning >= emergency, or above 100) falls back to 50/80.' },
  { name: 'emergencyPct', label: 'Emergency line', default: 80, min: 0, max: null, sliderMax: 100, step: 1, kind: 'percent', unit: '% of window', doc: 'Pressure at which a model-free digest is written at once (agent profile; the ordinary profile writes the model summary at once). Default 80 (the compaction-between-turns design). A nonsense pair falls back to 50/80.' },
  { name: 'contextWindow', label: 'Context window', default: 200000, min: 1000, max: null, sliderMax: 1000000, step: 1000, kind: 'int', unit: 'tokens', doc: "The model's context window; pressure = tokens seen / contextWindow. Default 200,000 (the usual Claude context window)." },
  { name: 'profile', label: 'Profile', default: AGENT_PROFILE, min: 0, max: 1, step: 1, kind: 'int', doc: 'The compaction-between-turns design\'s two profiles: 0 = agent session (model-free digest at the emergency line, upgraded in the background; keeps 40 turns), 1 = ordinary conversation (the model summary right away; keeps 6). Default 0 (agent).' },
  { name: 'keepLast', label: 'Keep last', default: PROFILE_KEEP_LAST, min: 0, max: null, sliderMax: 200, step: 1, kind: 'int', unit: 'turns', unlimitedValue: PROFILE_KEEP_LAST, unlimitedLabel: "profile's", doc: "Most recent turns never summarized. Default -1 = the profile's: 40 for an agent session, 6 for an ordinary conversation (the compaction-between-turns design)." },
  { name: 'minBatch', label: 'Min batch', default: 20, min: 1, max: null, sliderMax: 200, step: 1, kind: 'int', unit: 'turns', doc: 'A background pass summarizes new turns only when at least this many lie beyond the kept window (or a digest awaits its upgrade). Default 20 (the compaction-between-turns design).' },
  { name: 'chunkChars', label: 'Chunk size', default: 18000, min: 500, max: null, sliderMax: 100000, step: 500, kind: 'int', unit: 'chars', doc: 'About how many characters of new turns one summarizer call reads (the chunk summaries are folded into the pass\'s one summary). Default 18,000 (the compaction-between-turns design).' },
  { name: 'concurrency', label: 'Concurrency', default: 4, min: 1, max: 32, step: 1, kind: 'int', unit: 'chunks', doc: 'Chunks summarized at once by the background pass. Default 4 (the compaction-between-turns design).' },
  preMaskSpec,
  contextMeasureSpec,
];

/** keepLast in effect: the given value, or the profile's for -1. */
export function effectiveKeepLast(p: Pick<TwoLineParams, 'keepLast' | 'profile'>): number {
  if (p.keepLast !== PROFILE_KEEP_LAST) return p.keepLast;
  return p.profile === ORDINARY_PROFILE ? ORDINARY_PROFILE_KEEP_LAST : AGENT_PROFILE_KEEP_LAST;
}

/** Target size of one chunk summary (the map step): a quarter of its tokens, between 64 and 1,500 (chunkChars 18,000 ≈ 4,500 tokens → ~1,100). */
export function chunkTargetTokens(tokens: number): number {
  return Math.max(64, Math.min(1500, Math.ceil(tokens / 4)));
}
/** Target size of a pass's one summary (digest or model summary) of `tokens` of input: an eighth, between 256 and 4,000. */
export function digestTargetTokens(tokens: number): number {
  return Math.max(256, Math.min(4000, Math.ceil(tokens / 8)));
}
export const passSummaryTargetTokens = digestTargetTokens;

/** The lines actually used, and why. */
export function effectiveLines(p: Pick<TwoLineParams, 'warningPct' | 'emergencyPct'>): { warningPct: number; emergencyPct: number; fellBack: boolean } {
  const ok = Number.isFinite(p.warningPct) && Number.isFinite(p.emergencyPct) && p.warningPct >= 0 && p.emergencyPct <= 100 && p.warningPct < p.emergencyPct;
  return ok ? { warningPct: p.warningPct, emergencyPct: p.emergencyPct, fellBack: false } : { warningPct: DEFAULT_WARNING_PCT, emergencyPct: DEFAULT_EMERGENCY_PCT, fellBack: true };
}

export interface TwoLineDecision {
  warningPct: number;
  emergencyPct: number;
  fellBack: boolean;
  keepLast: number;
  prefixEnd: number;
  /** Positions before this are covered by the live summary (or are the system prefix). */
  coveredUntil: number;
  /** First position of the kept window (a safe cut). */
  keptStart: number;
  visibleTokens: number;
  pressure: number;
  level: 'none' | 'warning' | 'emergency';
  /** The live two-line summaries (one after any pass; what the model sees in place of [prefixEnd, coveredUntil)). */
  live: ExistingSummary[];
  /** The latest model summary (live, or superseded by a digest): what the next model summary continues. */
  base: ExistingSummary | null;
  /** Emergency (agent profile): the new turns the digest adds, [coveredUntil, keptStart). */
  digestRange: [number, number] | null;
  /** Background: the new turns the model summary reads, [base end, keptStart); null when there is no background work. */
  backgroundRange: [number, number] | null;
  /** Whether a live digest awaits its upgrade. */
  digestPending: boolean;
  /** Conversation turns beyond the kept window not summarized yet. */
  pendingTurns: number;
  reason: string;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The live (uncompacted) digest/chunk summaries, oldest first. */
export function liveTwoLineSummaries(summaries: readonly ExistingSummary[]): ExistingSummary[] {
  return summaries.filter((s) => !s.compacted && (s.kind === 'digest' || s.kind === 'chunk')).sort((a, b) => a.firstPosition - b.firstPosition || a.id - b.id);
}

/** The latest model summary row (kind 'chunk', live or superseded by a digest since), or null. */
export function baseModelSummary(summaries: readonly ExistingSummary[]): ExistingSummary | null {
  let best: ExistingSummary | null = null;
  for (const s of summaries) if (s.kind === 'chunk' && (!best || s.lastPosition > best.lastPosition || (s.lastPosition === best.lastPosition && s.id > best.id))) best = s;
  return best;
}

/** The whole decision: lines, pressure, the digest's new turns, the background's range. */
export function decideTwoLine(input: PlanInput<TwoLineParams>, ix: SpanIndex = buildSpanIndex(input.turns)): TwoLineDecision {
  const { summaries, state, params } = input;
  const n = ix.count;
  const lines = effectiveLines(params);
  const keepLast = effectiveKeepLast(params);
  let prefixEnd = 0;
  while (prefixEnd < n && input.turns[prefixEnd].role === 'system') prefixEnd++;
  const live = liveTwoLineSummaries(summaries);
  let coveredUntil = Math.max(prefixEnd, state.coveredUntil ?? prefixEnd);
  for (const s of live) coveredUntil = Math.max(coveredUntil, s.lastPosition + 1);
  coveredUntil = Math.min(coveredUntil, n);
  const liveTokens = live.reduce((a, s) => a + s.tokenCount, 0);
  const visibleTokens = ix.totalTokens - convTokensIn(ix, prefixEnd, coveredUntil) + liveTokens;
  // Pressure on what a live agent sends: the visible history plus the call's overhead.
  const reading = readInput(input, visibleTokens);
  const pressure = reading.tokens / params.contextWindow;
  const level: TwoLineDecision['level'] = pressure * 100 >= lines.emergencyPct ? 'emergency' : pressure * 100 >= lines.warningPct ? 'warning' : 'none';

  const convTotal = ix.convCountPrefix[n];
  const keptStart = Math.max(coveredUntil, safeCutAtOrBefore(ix, positionOfConvTurn(ix, Math.max(0, convTotal - keepLast))));
  const pendingTurns = convCountIn(ix, coveredUntil, keptStart);
  const ordinary = params.profile === ORDINARY_PROFILE;
  const digestRange: [number, number] | null = !ordinary && level === 'emergency' && pendingTurns > 0 ? [coveredUntil, keptStart] : null;
  const digestPending = live.some((s) => s.kind === 'digest');
  const base = baseModelSummary(summaries);
  const baseEnd = Math.min(keptStart, Math.max(prefixEnd, base ? base.lastPosition + 1 : prefixEnd));
  // The model summary: when a digest awaits it (or is being written now); for the ordinary
  // profile only at the emergency line (it does nothing between the lines); for an agent
  // once minBatch new turns wait beyond the kept window at or above the warning line.
  const wantsBackground = digestPending || digestRange !== null || (ordinary ? level === 'emergency' && pendingTurns > 0 : level !== 'none' && pendingTurns >= params.minBatch);
  const backgroundRange: [number, number] | null = wantsBackground && convCountIn(ix, baseEnd, keptStart) > 0 ? [baseEnd, keptStart] : null;

  // The reason is text only a plan or a firing record reads: written on first read (the live
  // replay decides two or three times per firing and keeps none of the texts).
  const describe = (): string => {
    const linesText = `${lines.warningPct}/${lines.emergencyPct}%${lines.fellBack ? ` (the given pair ${params.warningPct}/${params.emergencyPct} is not 0 <= warning < emergency <= 100: fell back to 50/80)` : ''}`;
    const head = `pressure ${pct(pressure)} of ${formatCount(params.contextWindow)} tokens (${describeReading(reading)}), lines ${linesText}`;
    if (level === 'emergency') return ordinary ? `${head}: emergency, ${backgroundRange ? `model summary of ${pendingTurns} new turns now (ordinary profile)` : 'nothing left to summarize'}` : `${head}: emergency, ${digestRange ? `digest ${pendingTurns} turns now` : 'nothing left to digest'}, then the background pass`;
    if (level === 'warning' && ordinary) return `${head}: warning, nothing to do (an ordinary conversation compacts at the emergency line)`;
    if (level === 'warning') return `${head}: warning, background pass (${pendingTurns} pending turns${pendingTurns < params.minBatch ? `, fewer than minBatch ${params.minBatch}` : ''})`;
    if (digestPending) return `${head}: below warning, but the digest awaits its upgrade`;
    return `${head}: below warning, nothing to do`;
  };
  // An own enumerable lazy field (shared/lazy.ts): spreads, JSON and deep equality see the text.
  return withLazy<TwoLineDecision, 'reason'>(
    {
      warningPct: lines.warningPct,
      emergencyPct: lines.emergencyPct,
      fellBack: lines.fellBack,
      keepLast,
      prefixEnd,
      coveredUntil,
      keptStart,
      visibleTokens,
      pressure,
      level,
      live,
      base,
      digestRange,
      backgroundRange,
      digestPending,
      pendingTurns,
    },
    'reason',
    describe,
  );
}

/** Position where the visible tokens reach `threshold` (for the warning/emergency lines on the turn list), or null. */
function lineCrossing(ix: SpanIndex, d: TwoLineDecision, threshold: number): number | null {
  // For p >= coveredUntil: visible tokens of turns [0, p) = tokenPrefix[p] + offset.
  const offset = d.live.reduce((a, s) => a + s.tokenCount, 0) - convTokensIn(ix, d.prefixEnd, d.coveredUntil);
  const goal = threshold - offset;
  if (ix.totalTokens < goal) return null;
  let lo = d.coveredUntil;
  let hi = ix.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ix.tokenPrefix[mid] >= goal) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * A PlanSpan over the conversation turns of [from, to) (which holds at least one). `ids`
 * holds every conversation turn's id in order (built once per plan: at the emergency line
 * the digest and the model summary list the same 100,000 ids, sliced, not rescanned).
 */
function spanOf(turns: readonly TurnMeta[], ix: SpanIndex, ids: readonly number[], id: string, purpose: 'digest' | 'chunk', from: number, to: number, targetTokens: number): PlanSpan {
  let first = from;
  while (turns[first].role === 'system') first++;
  let last = to - 1;
  while (turns[last].role === 'system') last--;
  const ccp = ix.convCountPrefix;
  return { id, purpose, firstPosition: first, lastPosition: last, turnIds: ids.slice(ccp[from], ccp[to]), tokens: convTokensIn(ix, from, to), chars: ix.convCharPrefix[to] - ix.convCharPrefix[from], targetTokens };
}

function convIds(turns: readonly TurnMeta[], to: number): number[] {
  // Pushed, not preallocated: a packed array slices much faster than a holey one.
  const ids: number[] = [];
  for (let i = 0; i < to; i++) if (turns[i].role !== 'system') ids.push(turns[i].id);
  return ids;
}

export function planTwoLine(input: PlanInput<TwoLineParams>): Plan<TwoLineParams> {
  const { turns, summaries, params } = input;
  const ix = buildSpanIndex(turns);
  const d = decideTwoLine(input, ix);
  const boundaries: PlanBoundary[] = [{ kind: 'kept-window', position: d.keptStart, label: `last ${d.keepLast} turns kept` }];
  for (const [kind, p] of [['warning', d.warningPct], ['emergency', d.emergencyPct]] as const) {
    const at = lineCrossing(ix, d, (p / 100) * params.contextWindow);
    if (at !== null) boundaries.push({ kind, position: at, label: `${kind} line: ${p}% of ${formatCount(params.contextWindow)} tokens` });
  }
  const nodes: ProjectedNode[] = summaries.map((s) => ({ id: `s${s.id}`, depth: 0, projected: false, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted }));
  const liveTokens = d.live.reduce((a, s) => a + s.tokenCount, 0);
  const spans: PlanSpan[] = [];
  // One row per pass: the digest (agent profile, emergency) and the model summary that
  // supersedes it, each one span over the new turns it reads (never one span per chunk).
  const ids = d.digestRange || d.backgroundRange ? convIds(turns, d.keptStart) : [];
  if (d.digestRange) {
    const [a, b] = d.digestRange;
    spans.push(spanOf(turns, ix, ids, `p${spans.length}`, 'digest', a, b, digestTargetTokens(liveTokens + convTokensIn(ix, a, b))));
  }
  if (d.backgroundRange) {
    const [a, b] = d.backgroundRange;
    spans.push(spanOf(turns, ix, ids, `p${spans.length}`, 'chunk', a, b, passSummaryTargetTokens((d.base?.tokenCount ?? 0) + convTokensIn(ix, a, b))));
  }
  const firstConv = d.prefixEnd < turns.length ? d.prefixEnd : 0;
  for (const span of spans) {
    // The projected row stands for the whole history before the kept window; the digest is a stand-in the model summary supersedes: drawn compacted.
    nodes.push({ id: span.id, depth: 0, projected: true, firstPosition: firstConv, lastPosition: span.lastPosition, tokens: span.targetTokens, compacted: span.purpose === 'digest' });
  }
  if (spans.length > 0) for (const node of nodes) if (!node.projected && d.live.some((s) => `s${s.id}` === node.id)) node.compacted = true;
  // After the pass: the model summary replaces every live row and the turns up to the kept window.
  const model = spans.find((s) => s.purpose === 'chunk');
  const tokensAfter = model ? d.visibleTokens - liveTokens - convTokensIn(ix, d.coveredUntil, d.keptStart) + model.targetTokens : d.visibleTokens;
  return {
    strategy: 'two-line',
    params,
    trigger: { compact: spans.length > 0, reason: d.level !== 'none' && spans.length === 0 ? `${d.reason}; nothing to summarize yet` : d.reason, pressure: d.pressure, level: d.level === 'none' ? 'none' : d.level },
    boundaries,
    spans,
    condense: [],
    dag: { nodes, edges: [] },
    tokensBefore: d.visibleTokens,
    tokensAfter,
    budget: params.contextWindow,
  };
}

export const twoLineStrategy: StrategyRules<TwoLineParams> = {
  name: 'two-line',
  label: 'Two-line',
  prompts: ['chunk', 'digest'],
  description:
    'Two pressure lines on the context window: past warningPct a background pass summarizes the turns beyond the last keepLast in chunks of about chunkChars; past emergencyPct a model-free digest replaces them at once and is upgraded in the background. One summary row per pass (the digest is superseded by the model summary, which continues the previous one). Profile 0 (agent) keeps 40 turns and digests at the emergency line; profile 1 (ordinary chat) keeps 6 and writes the model summary at once. Follows the compaction-between-turns design.',
  specs: twoLineSpecs,
  plan: planTwoLine,
  view: ({ turns, summaries }) => coverCandidates(turns, summaries, (s) => !s.compacted && (s.kind === 'digest' || s.kind === 'chunk')),
  live: {
    mayFire: (m, p) => m.contextTokens * 100 >= effectiveLines(p).warningPct * p.contextWindow,
    // The planner's tokensBefore is the decision's visibleTokens: no spans or node list for it.
    visible: (input) => decideTwoLine(input).visibleTokens,
    lines: (p) => {
      const l = effectiveLines(p);
      return [
        { label: `warning line (context, ${measureChoiceOf(p)})`, tokens: Math.floor((l.warningPct / 100) * p.contextWindow) },
        { label: `emergency line (context, ${measureChoiceOf(p)})`, tokens: Math.floor((l.emergencyPct / 100) * p.contextWindow) },
      ];
    },
    note: 'Warning passes run in the background and commit commitDelayCalls model calls later (abandoned if the history moved); the emergency digest is written at once.',
  },
};
