/**
 * Strategy `two-line`: compaction between turns with two pressure lines (the
 * compaction-between-turns design). pressure = the tokens the model sees now / contextWindow.
 * - Below warningPct: nothing.
 * - warningPct up to emergencyPct: schedule a BACKGROUND pass.
 * - At or above emergencyPct: write a model-free DIGEST (the extractive summarizer, no
 *   model call) of everything but the last `keepLast` turns NOW, and schedule the
 *   background pass to upgrade it.
 * Background pass: upgrade every digest first (its turns are re-summarized by the model
 * in chunks, the digest is then marked compacted); then, if at least `minBatch` turns
 * beyond the kept window are not summarized yet, cut them into chunks of about
 * `chunkChars` characters and summarize `concurrency` chunks at once. Chunks follow the
 * shared rule (spans.ts `chunkRange`): a chunk closes before the turn that would push it
 * past the limit, one longer turn is a chunk of its own, cuts are tool-cycle safe.
 *
 * A nonsense line pair (warning >= emergency, or either outside 0-100) falls back to
 * 50/80, which the plan's reason says; it is not an error. (Negative values are refused
 * by the parameter resolver, whose minimum is 0 so the window's slider stays usable.)
 * The kept window's start moves EARLIER to a tool-cycle-safe cut, so the kept turns never
 * begin with a tool_result whose call was summarized.
 *
 * Profiles: `keepLast` 40 is the design's default for an agent session; its
 * "ordinary" (chat) profile keeps 6 — set keepLast=6.
 * Counting conventions as everywhere (spans.ts): system turns are never summarized.
 */
import type { ParamSpec } from './params.js';
import { preMaskSpec } from './mask-stage.js';
import type { StrategyRules } from './strategy.js';
import { coverCandidates } from '../replay/candidates.js';
import type { ExistingSummary, Plan, PlanBoundary, PlanInput, PlanSpan, ProjectedNode } from './types.js';
import { buildSpanIndex, chunkRange, convCountIn, convTokensIn, formatCount, positionOfConvTurn, safeCutAtOrBefore, type SpanIndex } from './spans.js';
import type { TurnMeta } from '../model/turn.js';

export type TwoLineParams = {
  warningPct: number;
  emergencyPct: number;
  contextWindow: number;
  keepLast: number;
  minBatch: number;
  chunkChars: number;
  concurrency: number;
};

/** The lines used when the given pair is nonsense. */
export const DEFAULT_WARNING_PCT = 50;
export const DEFAULT_EMERGENCY_PCT = 80;
/** The compaction-between-turns design's keepLast for an "ordinary" (non-agent) conversation. */
export const ORDINARY_PROFILE_KEEP_LAST = 6;

export const twoLineSpecs: readonly ParamSpec[] = [
  { name: 'warningPct', label: 'Warning line', default: 50, min: 0, max: null, sliderMax: 100, step: 1, kind: 'percent', unit: '% of window', doc: 'Pressure at which a background pass is scheduled. Default 50 (the compaction-between-turns design). A nonsense pair (warning >= emergency, or above 100) falls back to 50/80.' },
  { name: 'emergencyPct', label: 'Emergency line', default: 80, min: 0, max: null, sliderMax: 100, step: 1, kind: 'percent', unit: '% of window', doc: 'Pressure at which a model-free digest is written at once. Default 80 (the compaction-between-turns design). A nonsense pair falls back to 50/80.' },
  { name: 'contextWindow', label: 'Context window', default: 200000, min: 1000, max: null, sliderMax: 1000000, step: 1000, kind: 'int', unit: 'tokens', doc: "The model's context window; pressure = tokens seen / contextWindow. Default 200,000 (the issue)." },
  { name: 'keepLast', label: 'Keep last', default: 40, min: 0, max: null, sliderMax: 200, step: 1, kind: 'int', unit: 'turns', doc: 'Most recent turns never summarized. Default 40 (the compaction-between-turns design, agent profile); 6 for its "ordinary" profile.' },
  { name: 'minBatch', label: 'Min batch', default: 20, min: 1, max: null, sliderMax: 200, step: 1, kind: 'int', unit: 'turns', doc: 'A background pass summarizes new turns only when at least this many lie beyond the kept window. Default 20 (the compaction-between-turns design).' },
  { name: 'chunkChars', label: 'Chunk size', default: 18000, min: 500, max: null, sliderMax: 100000, step: 500, kind: 'int', unit: 'chars', doc: 'About how many characters one chunk summary covers. Default 18,000 (the compaction-between-turns design).' },
  { name: 'concurrency', label: 'Concurrency', default: 4, min: 1, max: 32, step: 1, kind: 'int', unit: 'chunks', doc: 'Chunks summarized at once by the background pass. Default 4 (the compaction-between-turns design).' },
  preMaskSpec,
];

/** Target size of one chunk summary: a quarter of its tokens, between 64 and 1,500 (chunkChars 18,000 ≈ 4,500 tokens → ~1,100). */
export function chunkTargetTokens(tokens: number): number {
  return Math.max(64, Math.min(1500, Math.ceil(tokens / 4)));
}
/** Target size of the emergency digest: an eighth of its tokens, between 256 and 4,000 (it is a stand-in until upgraded). */
export function digestTargetTokens(tokens: number): number {
  return Math.max(256, Math.min(4000, Math.ceil(tokens / 8)));
}

/** The lines actually used, and why. */
export function effectiveLines(p: Pick<TwoLineParams, 'warningPct' | 'emergencyPct'>): { warningPct: number; emergencyPct: number; fellBack: boolean } {
  const ok = Number.isFinite(p.warningPct) && Number.isFinite(p.emergencyPct) && p.warningPct >= 0 && p.emergencyPct <= 100 && p.warningPct < p.emergencyPct;
  return ok ? { warningPct: p.warningPct, emergencyPct: p.emergencyPct, fellBack: false } : { warningPct: DEFAULT_WARNING_PCT, emergencyPct: DEFAULT_EMERGENCY_PCT, fellBack: true };
}

/** One digest's upgrade: its chunks, as half-open position ranges. */
export interface DigestUpgrade {
  digest: ExistingSummary;
  chunks: Array<[number, number]>;
}

export interface TwoLineDecision {
  warningPct: number;
  emergencyPct: number;
  fellBack: boolean;
  prefixEnd: number;
  /** Positions before this are covered by digest/chunk summaries (or are the system prefix). */
  coveredUntil: number;
  /** First position of the kept window (a safe cut). */
  keptStart: number;
  visibleTokens: number;
  pressure: number;
  level: 'none' | 'warning' | 'emergency';
  /** The live digests and chunks (what the model sees in place of [prefixEnd, coveredUntil)). */
  live: ExistingSummary[];
  /** Emergency: the range the digest covers now, [coveredUntil, keptStart). */
  digestRange: [number, number] | null;
  /** Background: existing digests to upgrade, oldest first. */
  upgrades: DigestUpgrade[];
  /** Background: chunks of the not-yet-summarized turns beyond the kept window (empty below minBatch). */
  newChunks: Array<[number, number]>;
  /** Conversation turns beyond the kept window not summarized yet. */
  pendingTurns: number;
  reason: string;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The live (uncompacted) digest/chunk summaries, oldest first. */
export function liveTwoLineSummaries(summaries: readonly ExistingSummary[]): ExistingSummary[] {
  return summaries.filter((s) => !s.compacted && (s.kind === 'digest' || s.kind === 'chunk')).sort((a, b) => a.firstPosition - b.firstPosition || a.id - b.id);
}

/** The whole decision: lines, pressure, digest range, digest upgrades and new chunks. */
export function decideTwoLine(input: PlanInput<TwoLineParams>, ix: SpanIndex = buildSpanIndex(input.turns)): TwoLineDecision {
  const { summaries, state, params } = input;
  const n = ix.count;
  const lines = effectiveLines(params);
  let prefixEnd = 0;
  while (prefixEnd < n && input.turns[prefixEnd].role === 'system') prefixEnd++;
  const live = liveTwoLineSummaries(summaries);
  let coveredUntil = Math.max(prefixEnd, state.coveredUntil ?? prefixEnd);
  for (const s of live) coveredUntil = Math.max(coveredUntil, s.lastPosition + 1);
  coveredUntil = Math.min(coveredUntil, n);
  const liveTokens = live.reduce((a, s) => a + s.tokenCount, 0);
  const visibleTokens = ix.totalTokens - convTokensIn(ix, prefixEnd, coveredUntil) + liveTokens;
  // Pressure on what a live agent sends: the visible history plus the call's overhead.
  const pressure = (visibleTokens + (input.overheadTokens ?? 0)) / params.contextWindow;
  const level: TwoLineDecision['level'] = pressure * 100 >= lines.emergencyPct ? 'emergency' : pressure * 100 >= lines.warningPct ? 'warning' : 'none';

  const convTotal = ix.convCountPrefix[n];
  const keptStart = Math.max(coveredUntil, safeCutAtOrBefore(ix, positionOfConvTurn(ix, Math.max(0, convTotal - params.keepLast))));
  const pendingTurns = convCountIn(ix, coveredUntil, keptStart);
  const digestRange: [number, number] | null = level === 'emergency' && pendingTurns > 0 ? [coveredUntil, keptStart] : null;
  const upgrades: DigestUpgrade[] = live.filter((s) => s.kind === 'digest').map((digest) => ({ digest, chunks: chunkRange(ix, digest.firstPosition, digest.lastPosition + 1, params.chunkChars, 'chars') }));
  // With a digest about to cover them, the pending turns are upgraded as its chunks instead.
  const newChunks = !digestRange && pendingTurns >= params.minBatch ? chunkRange(ix, coveredUntil, keptStart, params.chunkChars, 'chars') : [];

  const linesText = `${lines.warningPct}/${lines.emergencyPct}%${lines.fellBack ? ` (the given pair ${params.warningPct}/${params.emergencyPct} is not 0 <= warning < emergency <= 100: fell back to 50/80)` : ''}`;
  const head = `pressure ${pct(pressure)} of ${formatCount(params.contextWindow)} tokens, lines ${linesText}`;
  let reason: string;
  if (level === 'emergency') reason = `${head}: emergency, ${digestRange ? `digest ${pendingTurns} turns now` : 'nothing left to digest'}, then the background pass`;
  else if (level === 'warning') reason = `${head}: warning, background pass (${pendingTurns} pending turns${newChunks.length === 0 ? `, fewer than minBatch ${params.minBatch}` : ''})`;
  else if (upgrades.length > 0) reason = `${head}: below warning, but ${upgrades.length} digest(s) await their upgrade`;
  else reason = `${head}: below warning, nothing to do`;
  return { ...lines, prefixEnd, coveredUntil, keptStart, visibleTokens, pressure, level, live, digestRange, upgrades, newChunks, pendingTurns, reason };
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
 * PlanSpans over half-open ranges of conversation turns. At the emergency line of a long
 * session the digest and its upgrade chunks list every turn id twice, so the ids come
 * from slices of one precomputed array rather than a rescan per span.
 */
function spansOf(turns: readonly TurnMeta[], ix: SpanIndex, ranges: ReadonlyArray<readonly ['digest' | 'chunk', number, number]>): PlanSpan[] {
  const spans: PlanSpan[] = [];
  if (ranges.length === 0) return spans;
  const ccp = ix.convCountPrefix;
  const ctp = ix.convTokenPrefix;
  const chp = ix.convCharPrefix;
  const n = ix.count;
  // Pushed, not preallocated: a packed array slices much faster than a holey one.
  const ids: number[] = [];
  for (let i = 0; i < n; i++) if (turns[i].role !== 'system') ids.push(turns[i].id);
  for (const [purpose, from, to] of ranges) {
    const a = ccp[from];
    const b = ccp[to];
    if (b <= a) continue;
    // First and last conversation turn of the range (system turns at its edges are skipped).
    let first = from;
    while (turns[first].role === 'system') first++;
    let last = to - 1;
    while (turns[last].role === 'system') last--;
    const tokens = ctp[to] - ctp[from];
    spans.push({
      id: `p${spans.length}`,
      purpose,
      firstPosition: first,
      lastPosition: last,
      turnIds: ids.slice(a, b),
      tokens,
      chars: chp[to] - chp[from],
      targetTokens: purpose === 'digest' ? digestTargetTokens(tokens) : chunkTargetTokens(tokens),
    });
  }
  return spans;
}

export function planTwoLine(input: PlanInput<TwoLineParams>): Plan<TwoLineParams> {
  const { turns, summaries, params } = input;
  const ix = buildSpanIndex(turns);
  const d = decideTwoLine(input, ix);
  const boundaries: PlanBoundary[] = [{ kind: 'kept-window', position: d.keptStart, label: `last ${params.keepLast} turns kept` }];
  for (const [kind, p] of [['warning', d.warningPct], ['emergency', d.emergencyPct]] as const) {
    const at = lineCrossing(ix, d, (p / 100) * params.contextWindow);
    if (at !== null) boundaries.push({ kind, position: at, label: `${kind} line: ${p}% of ${formatCount(params.contextWindow)} tokens` });
  }
  const nodes: ProjectedNode[] = summaries.map((s) => ({ id: `s${s.id}`, depth: s.depth, projected: false, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted }));
  // At the emergency line of a long session the digest and its upgrade chunks list every
  // turn id twice: slice one precomputed id array instead of rescanning per span.
  const ranges: Array<['digest' | 'chunk', number, number]> = [];
  const active = d.level !== 'none' || d.upgrades.length > 0;
  if (active) {
    if (d.digestRange) ranges.push(['digest', d.digestRange[0], d.digestRange[1]]);
    for (const u of d.upgrades) {
      for (const [a, b] of u.chunks) ranges.push(['chunk', a, b]);
      const node = nodes.find((x) => x.id === `s${u.digest.id}`);
      if (node) node.compacted = true;
    }
    if (d.digestRange) for (const [a, b] of chunkRange(ix, d.digestRange[0], d.digestRange[1], params.chunkChars, 'chars')) ranges.push(['chunk', a, b]);
    for (const [a, b] of d.newChunks) ranges.push(['chunk', a, b]);
  }
  const spans = spansOf(turns, ix, ranges);
  for (const span of spans) {
    // The digest is a stand-in the background pass replaces: drawn compacted.
    nodes.push({ id: span.id, depth: 0, projected: true, firstPosition: span.firstPosition, lastPosition: span.lastPosition, tokens: Math.min(span.targetTokens, span.tokens), compacted: span.purpose === 'digest' });
  }
  // After the background pass: the chunks replace the digests and the new turns.
  let tokensAfter = d.visibleTokens;
  for (const sp of spans) {
    if (sp.purpose !== 'chunk') continue;
    tokensAfter += Math.min(sp.targetTokens, sp.tokens) - sp.tokens;
  }
  for (const u of active ? d.upgrades : []) tokensAfter += convTokensIn(ix, u.digest.firstPosition, u.digest.lastPosition + 1) - u.digest.tokenCount;
  const chunks = spans.filter((s) => s.purpose === 'chunk').length;
  return {
    strategy: 'two-line',
    params,
    trigger: { compact: active && spans.length > 0, reason: active && spans.length === 0 ? `${d.reason}; nothing to summarize yet` : d.reason, pressure: d.pressure, level: d.level === 'none' ? 'none' : d.level },
    boundaries,
    spans,
    condense: [],
    dag: { nodes, edges: [] },
    tokensBefore: d.visibleTokens,
    tokensAfter: chunks > 0 ? tokensAfter : d.visibleTokens,
    budget: params.contextWindow,
  };
}

export const twoLineStrategy: StrategyRules<TwoLineParams> = {
  name: 'two-line',
  label: 'Two-line',
  prompts: ['chunk', 'digest'],
  description:
    'Two pressure lines on the context window: past warningPct a background pass summarizes the turns beyond the last keepLast in chunks of about chunkChars; past emergencyPct a model-free digest replaces them at once and is upgraded in the background. keepLast 40 is the agent profile; use 6 for an ordinary chat. Follows the compaction-between-turns design.',
  specs: twoLineSpecs,
  plan: planTwoLine,
  view: ({ turns, summaries }) => coverCandidates(turns, summaries, (s) => !s.compacted && (s.kind === 'digest' || s.kind === 'chunk')),
  live: {
    mayFire: (m, p) => m.contextTokens * 100 >= effectiveLines(p).warningPct * p.contextWindow,
    lines: (p) => {
      const l = effectiveLines(p);
      return [
        { label: 'warning line', tokens: Math.floor((l.warningPct / 100) * p.contextWindow) },
        { label: 'emergency line', tokens: Math.floor((l.emergencyPct / 100) * p.contextWindow) },
      ];
    },
    note: 'Warning passes run in the background and commit commitDelayCalls model calls later (abandoned if the history moved); the emergency digest is written at once.',
  },
};
