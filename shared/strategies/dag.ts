/**
 * Strategy `dag`: a compaction manager over a summary DAG, following lossless-claw
 * (Martian Engineering's Lossless Context Management plugin; the LCM paper).
 *
 * - Trigger (`shouldCompact`): the tokens the model currently sees (system turns +
 *   uncompacted summaries + turns not covered by any summary), by the variant's context
 *   measure (shared/usage/measure.ts: calibrated = with the call's overhead and the tokenizer
 *   ratio, or transcript), > tokenBudget × contextThreshold.
 *   `plan.trigger.compact` reports it; the plan always lists what a pass WOULD do, so the
 *   window can preview a forced `compact` too (the pass honours the trigger unless forced).
 * - Leaf pass: the last `freshTailCount` turns are protected (the fresh-tail start moves
 *   EARLIER to a tool-cycle-safe cut, so the tail never loses a turn). The evictable turns
 *   not yet covered by a depth-0 summary are cut into chunks of about `leafChunkTokens`
 *   (spans.ts `chunkRange`: a chunk closes before the turn that would exceed the target,
 *   a larger single turn is its own chunk, cuts only at tool-cycle-safe positions). Each
 *   chunk gets the most recent existing depth-0 summary (at pass start) as prior summary.
 *   System turns are never summarized (they stay in what the model sees).
 * - Condensation: from depth 0 upwards, if at least `condensedMinFanout` uncompacted
 *   summaries exist at a depth (existing + projected), ALL of them are condensed into one
 *   parent at depth+1 and marked compacted; repeat until a depth has too few, or the
 *   parent would exceed `maxCondenseDepth`.
 * - What the model sees: system turns, uncompacted summaries in chronological order, then
 *   the turns not covered by any summary (at least the fresh tail).
 */
import { withLazy } from '../lazy.js';
import type { ParamSpec } from './params.js';
import { preMaskSpec } from './mask-stage.js';
import { contextMeasureSpec } from './measure-spec.js';
import type { StrategyRules } from './strategy.js';
import { describeReading, measureChoiceOf, readInput, readingFor } from '../usage/measure.js';
import { coverCandidates } from '../replay/candidates.js';
import type { ExistingSummary, Plan, PlanCondense, PlanInput, PlanSpan, ProjectedDag, ProjectedNode } from './types.js';
import { buildSpanIndex, chunkRange, convTokensIn, makeSpan, mergeFlatIntervals, safeCutAtOrBefore, uncoveredGaps, type SpanIndex } from './spans.js';

export type DagParams = {
  contextThreshold: number;
  tokenBudget: number;
  freshTailCount: number;
  leafChunkTokens: number;
  condensedMinFanout: number;
  maxCondenseDepth: number;
  triggerCount: number;
};

/** `triggerCount` values: what the trigger measures. */
export const TRIGGER_VISIBLE = 0;
export const TRIGGER_REFERENCE = 1;

/** `maxCondenseDepth` value meaning "no limit" (lossless-claw uses -1 for unlimited depth too). */
export const UNLIMITED_DEPTH = -1;

/**
 * Target size of a leaf summary: lossless-claw's `leafTargetTokens` default 1200 (its
 * architecture notes: leaf summaries "typically 800–1200 tokens"). Not a parameter here.
 */
export const DAG_LEAF_TARGET_TOKENS = 1200;
/** Target size of a condensed summary: lossless-claw's `condensedTargetTokens` default 2000. */
export const DAG_CONDENSED_TARGET_TOKENS = 2000;

export const dagSpecs: readonly ParamSpec[] = [
  {
    name: 'contextThreshold',
    label: 'Context threshold',
    default: 0.75,
    min: 0.05,
    max: 1,
    step: 0.05,
    kind: 'float',
    doc: 'Compact when the context the model receives (by the context measure) exceeds tokenBudget × this fraction. Default 0.75 (lossless-claw LCM_CONTEXT_THRESHOLD).',
  },
  {
    name: 'tokenBudget',
    label: 'Token budget',
    default: 200000,
    min: 1000,
    max: null,
    sliderMax: 1000000,
    step: 1000,
    kind: 'int',
    unit: 'tokens',
    doc: "The model's context window. Default 200,000 (a Claude-class context window).",
  },
  {
    name: 'freshTailCount',
    label: 'Fresh tail',
    default: 16,
    min: 0,
    max: null,
    sliderMax: 200,
    step: 1,
    kind: 'int',
    unit: 'turns',
    doc: 'The newest turns (by position, system turns included, as lossless-claw counts messages) that are never summarized; the tail grows earlier to keep a tool cycle whole. Default 16 (lossless-claw suggests 8-64).',
  },
  {
    name: 'leafChunkTokens',
    label: 'Leaf chunk size',
    default: 20000,
    min: 100,
    max: null,
    sliderMax: 100000,
    step: 500,
    kind: 'int',
    unit: 'tokens',
    doc: 'Source tokens per leaf summary chunk. Default 20,000 (lossless-claw LCM_LEAF_CHUNK_TOKENS).',
  },
  {
    name: 'condensedMinFanout',
    label: 'Condense fanout',
    default: 4,
    min: 2,
    max: null,
    sliderMax: 16,
    step: 1,
    kind: 'int',
    unit: 'summaries',
    doc: 'Uncompacted summaries at one depth needed before they are condensed into a parent. Default 4 (lossless-claw LCM_CONDENSED_MIN_FANOUT).',
  },
  {
    name: 'maxCondenseDepth',
    label: 'Max condense depth',
    default: UNLIMITED_DEPTH,
    min: 0,
    max: null,
    sliderMax: 10,
    step: 1,
    kind: 'int',
    unlimitedValue: UNLIMITED_DEPTH,
    doc: 'Deepest condensed summary allowed: 0 = leaves only (no condensation at all; leaves accumulate one per chunk), 1 = leaves and one level of parents, ...; -1 = unlimited (the default, as in lossless-claw).',
  },
  {
    name: 'triggerCount',
    label: 'Trigger counts',
    default: TRIGGER_VISIBLE,
    min: 0,
    max: 1,
    step: 1,
    kind: 'int',
    doc: "What the trigger measures. 0 (default) = the visible context: system turns + uncompacted summaries + turns no summary covers, what the model receives. 1 = lossless-claw's count: every raw turn (summarized or not) + the top-level (uncompacted) summaries; it keeps growing after compaction, so it fires more often.",
  },
  preMaskSpec,
  contextMeasureSpec,
];

/** The most recent depth-0 summary: the one covering the latest turns (ties: the newest id). */
export function latestLeaf(summaries: readonly ExistingSummary[]): ExistingSummary | null {
  let best: ExistingSummary | null = null;
  for (const s of summaries) {
    if (s.depth !== 0) continue;
    if (!best || s.lastPosition > best.lastPosition || (s.lastPosition === best.lastPosition && s.id > best.id)) best = s;
  }
  return best;
}

interface CondenseCandidate {
  id: string;
  first: number;
  last: number;
  tokens: number;
  /** Existing summary id (for stable ordering) or Infinity for projected nodes. */
  order: number;
}

/**
 * What the model sees now under the summaries: the turns no leaf covers plus the uncompacted
 * summaries. Leaf coverage: compacted leaves still cover (their parent does). O(s log s).
 */
function dagVisible(ix: SpanIndex, summaries: readonly ExistingSummary[]): { leafCoverage: ReadonlyArray<readonly [number, number]>; summaryTokens: number; tokensBefore: number } {
  const n = ix.count;
  const { leafCoverage, summaryTokens } = coverageOf(summaries);
  let coveredTokens = 0;
  for (const [a, b] of leafCoverage) coveredTokens += convTokensIn(ix, Math.max(0, a), Math.min(n, b + 1));
  return { leafCoverage, summaryTokens, tokensBefore: ix.totalTokens - coveredTokens + summaryTokens };
}

/**
 * The leaves' merged coverage and the uncompacted summaries' tokens, once per summary list
 * (planner inputs are never mutated): a live replay's view and its next plan read the same
 * list, at each of its firings.
 */
function coverageOf(summaries: readonly ExistingSummary[]): { leafCoverage: ReadonlyArray<readonly [number, number]>; summaryTokens: number } {
  if (lastCoverage !== null && lastCoverage.summaries === summaries) return lastCoverage.out;
  let leaves = 0;
  let summaryTokens = 0;
  for (const s of summaries) {
    if (s.depth === 0) {
      leafScratch[2 * leaves] = s.firstPosition;
      leafScratch[2 * leaves + 1] = s.lastPosition;
      leaves++;
    }
    if (!s.compacted) summaryTokens += s.tokenCount;
  }
  const out = { leafCoverage: mergeFlatIntervals(leafScratch, leaves), summaryTokens };
  lastCoverage = { summaries, out };
  return out;
}

/** The leaves' intervals, flat (reused: the merged coverage is what is kept). */
const leafScratch: number[] = [];
/**
 * The last list's coverage: a firing's plan and the view after it each read one list twice in
 * a row. One slot, not a WeakMap: V8's young collector keeps a WeakMap entry whose key and
 * value are young alive, and a slider frame's lists would then be promoted to the old generation.
 */
let lastCoverage: { summaries: readonly ExistingSummary[]; out: { leafCoverage: ReadonlyArray<readonly [number, number]>; summaryTokens: number } } | null = null;

export function planDag(input: PlanInput<DagParams>): Plan<DagParams> {
  const { turns, summaries, params } = input;
  const ix = buildSpanIndex(turns);
  const n = ix.count;

  // Protected tail: moved EARLIER to a safe cut, never later.
  const freshTailStart = safeCutAtOrBefore(ix, Math.max(0, n - params.freshTailCount));

  const { leafCoverage, summaryTokens, tokensBefore } = dagVisible(ix, summaries);
  const threshold = params.tokenBudget * params.contextThreshold;
  // What the trigger counts (triggerCount): the visible context (default), or the reference
  // implementation's count; either read by the context measure.
  const reading = readingFor(readInput(input, tokensBefore), params.triggerCount === TRIGGER_REFERENCE ? ix.totalTokens + summaryTokens : tokensBefore);
  const shouldCompact = reading.tokens > threshold;

  // Leaf spans over the uncovered evictable turns.
  const prior = latestLeaf(summaries);
  const spans: PlanSpan[] = [];
  for (const [from, to] of uncoveredGaps(leafCoverage, 0, freshTailStart)) {
    for (const [a, b] of chunkRange(ix, from, to, params.leafChunkTokens, 'tokens')) {
      const span = makeSpan(turns, ix, { id: `p${spans.length}`, purpose: 'leaf', from: a, to: b, targetTokens: DAG_LEAF_TARGET_TOKENS, priorSummaryId: prior ? prior.id : null });
      if (span) spans.push(span);
    }
  }

  // Condensation, depth by depth over existing + projected uncompacted summaries.
  const byDepth = new Map<number, CondenseCandidate[]>();
  const add = (depth: number, c: CondenseCandidate) => {
    const list = byDepth.get(depth);
    if (list) list.push(c);
    else byDepth.set(depth, [c]);
  };
  for (const s of summaries) if (!s.compacted) add(s.depth, { id: `s${s.id}`, first: s.firstPosition, last: s.lastPosition, tokens: s.tokenCount, order: s.id });
  for (const sp of spans) add(0, { id: sp.id, first: sp.firstPosition, last: sp.lastPosition, tokens: projectedTokens(sp.targetTokens, sp.tokens), order: Infinity });

  const condense: PlanCondense[] = [];
  const foldedIds = new Set<string>();
  const projectedCondensed: ProjectedNode[] = [];
  const edges: Array<{ source: string; target: string }> = [];
  let nextId = spans.length;
  let condensedTokenDelta = 0;
  for (let depth = 0; ; depth++) {
    const level = byDepth.get(depth) ?? [];
    if (level.length < params.condensedMinFanout) break;
    if (params.maxCondenseDepth !== UNLIMITED_DEPTH && depth + 1 > params.maxCondenseDepth) break;
    level.sort((x, y) => x.first - y.first || x.last - y.last || x.order - y.order);
    const id = `p${nextId++}`;
    let first = Infinity;
    let last = -Infinity;
    let childTokens = 0;
    for (const c of level) {
      foldedIds.add(c.id);
      edges.push({ source: id, target: c.id });
      if (c.first < first) first = c.first;
      if (c.last > last) last = c.last;
      childTokens += c.tokens;
    }
    const tokens = projectedTokens(DAG_CONDENSED_TARGET_TOKENS, childTokens);
    condensedTokenDelta += tokens - childTokens;
    condense.push({ id, depth: depth + 1, childIds: level.map((c) => c.id), targetTokens: DAG_CONDENSED_TARGET_TOKENS });
    projectedCondensed.push({ id, depth: depth + 1, projected: true, firstPosition: first, lastPosition: last, tokens, compacted: false });
    add(depth + 1, { id, first, last, tokens, order: Infinity });
  }

  let leafDelta = 0;
  for (const sp of spans) leafDelta += projectedTokens(sp.targetTokens, sp.tokens) - sp.tokens;

  // The projected DAG: existing summaries, projected leaves, projected parents. Listed on
  // first read (shared/lazy.ts, as makeSpan's turnIds): the live replay plans before
  // firings and never reads it, and it is O(every summary so far) per plan.
  const listDag = (): ProjectedDag => {
    const nodes: ProjectedNode[] = [];
    for (const s of summaries) {
      const id = `s${s.id}`;
      nodes.push({ id, depth: s.depth, projected: false, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted || foldedIds.has(id) });
      for (const child of s.childIds) edges.push({ source: id, target: `s${child}` });
    }
    for (const sp of spans) nodes.push({ id: sp.id, depth: 0, projected: true, firstPosition: sp.firstPosition, lastPosition: sp.lastPosition, tokens: projectedTokens(sp.targetTokens, sp.tokens), compacted: foldedIds.has(sp.id) });
    for (const c of projectedCondensed) nodes.push({ ...c, compacted: foldedIds.has(c.id) });
    return { nodes, edges };
  };

  const countName = params.triggerCount === TRIGGER_REFERENCE ? 'raw turns + top-level summaries' : 'context';
  const pct = (x: number) => `${Math.round((x / params.tokenBudget) * 1000) / 10}%`;
  const ctxTokens = reading.tokens;
  const measuredText = describeReading(reading);
  const nothing = spans.length === 0 && condense.length === 0;
  const protectedWhy =
    freshTailStart === 0 ? `the fresh tail (last ${params.freshTailCount} turns asked) covers the whole session of ${n} turns` : 'every turn before the fresh tail is summarized already and no depth has enough summaries to condense';
  const reason = shouldCompact && nothing
    ? `${countName} ${measuredText} > threshold ${Math.floor(threshold)}, but nothing can be evicted: ${protectedWhy}`
    : shouldCompact
    ? `${countName} ${measuredText} (${pct(ctxTokens)}) > threshold ${Math.floor(threshold)} (${params.contextThreshold} × ${params.tokenBudget})`
    : `${countName} ${measuredText} (${pct(ctxTokens)}) <= threshold ${Math.floor(threshold)} (${params.contextThreshold} × ${params.tokenBudget}): no compaction needed`;

  return withLazy<Plan<DagParams>, 'dag'>(
    {
      strategy: 'dag',
      params,
      trigger: { compact: shouldCompact && !nothing, reason, pressure: ctxTokens / params.tokenBudget },
      boundaries: [{ kind: 'fresh-tail', position: freshTailStart, label: freshTailLabel(n - freshTailStart, params.freshTailCount, n) }],
      spans,
      condense,
    },
    'dag',
    listDag,
    { tokensBefore, tokensAfter: tokensBefore + leafDelta + condensedTokenDelta, budget: params.tokenBudget },
    { settable: true },
  );
}

/** What the fresh tail kept, and why it is larger than asked when a tool cycle made it grow. */
export function freshTailLabel(kept: number, asked: number, sessionTurns = Number.POSITIVE_INFINITY): string {
  if (kept > asked) return `fresh tail: last ${kept} turns (${asked} asked, grown to keep a tool call with its result)`;
  if (asked > kept && kept >= sessionTurns) return `fresh tail: the whole session, ${kept} turns (${asked} asked)`;
  return `fresh tail: last ${kept} turns protected`;
}

/** A summary is projected at its target size, never larger than its source. */
function projectedTokens(target: number, sourceTokens: number): number {
  return Math.min(target, sourceTokens);
}

export const dagStrategy: StrategyRules<DagParams> = {
  name: 'dag',
  label: 'Summary DAG (lossless-claw)',
  prompts: ['leaf', 'condensed-1', 'condensed-2plus'],
  description:
    'Leaf summaries of ~leafChunkTokens chunks outside a protected fresh tail, condensed depth by depth once condensedMinFanout summaries accumulate, up to maxCondenseDepth (0 = leaves only, never condensed; -1 = unlimited). Compacts when the count exceeds contextThreshold × tokenBudget; the count is, by default (triggerCount 0), the visible context (system turns + uncompacted summaries + uncovered turns: what the model receives); triggerCount 1 uses the reference implementation\'s count (all raw turns + top-level summaries). Follows lossless-claw (Lossless Context Management).',
  specs: dagSpecs,
  plan: planDag,
  view: ({ turns, summaries }) => coverCandidates(turns, summaries, (s) => !s.compacted),
  live: {
    // The reference count is never below the visible one: with it, no pruning (no false negatives).
    mayFire: (m, p) => p.triggerCount === TRIGGER_REFERENCE || m.contextTokens > p.tokenBudget * p.contextThreshold,
    // The planner's tokensBefore without planning leaves, condensations and the projected DAG.
    visible: (input) => dagVisible(buildSpanIndex(input.turns), input.summaries).tokensBefore,
    lines: (p) => [
      { label: `trigger (context, ${measureChoiceOf(p)})`, tokens: Math.floor(p.tokenBudget * p.contextThreshold) },
      { label: 'token budget', tokens: p.tokenBudget },
    ],
  },
};
