/**
 * Span helpers shared by every planner: prefix sums over token and character counts,
 * tool-cycle-safe cut positions and chunking by size. Pure and allocation-light so a
 * planner stays well under one frame on 100,000 turns.
 *
 * Vocabulary used throughout:
 * - a *cut* `b` is a position in [0, count]: the boundary between turn b-1 and turn b.
 *   Ranges are half-open `[from, to)` of positions unless a name says "inclusive"
 *   (PlanSpan.firstPosition/lastPosition are inclusive, as in types.ts).
 * - a cut is *tool-cycle safe* iff no tool_use before it has its tool_result at or after
 *   it, i.e. every turn at position >= b has `cycleStart >= b` (TurnMeta.cycleStart).
 *   Cuts 0 and `count` are always safe.
 * - *conversation turns* are the non-system turns: system turns are never summarized,
 *   masked or dropped by any strategy (they are the stable prefix the model always sees),
 *   so span sizes and chunking use the conversation-only prefix sums.
 *
 * Usage: build one `SpanIndex` per plan with `buildSpanIndex(turns)` (O(n), one backward
 * pass computes the suffix minimum of cycleStart), then answer every query in O(1) or
 * O(log n).
 */
import { withLazy } from '../lazy.js';
import type { TurnMeta } from '../model/turn.js';
import type { PlanSpan } from './types.js';

/** Precomputed per-plan arrays. All prefix arrays have length count + 1; [i] covers turns [0, i). */
export interface SpanIndex {
  readonly count: number;
  /** Tokens of all turns (system included); = tokenPrefix[count] without building the array. */
  readonly totalTokens: number;
  /** Characters of all turns (system included). */
  readonly totalChars: number;
  /** Tokens of all turns (system included). Built on first access: most planners need only totalTokens. */
  readonly tokenPrefix: Float64Array;
  /** Characters of all turns (system included). Built on first access. */
  readonly charPrefix: Float64Array;
  /** Tokens of conversation (non-system) turns only. */
  readonly convTokenPrefix: Float64Array;
  /** Characters of conversation (non-system) turns only. */
  readonly convCharPrefix: Float64Array;
  /** Number of conversation (non-system) turns. */
  readonly convCountPrefix: Int32Array;
  /** [b] = the largest tool-cycle-safe cut <= b. */
  readonly safeAtOrBefore: Int32Array;
  /** [b] = the smallest tool-cycle-safe cut >= b. */
  readonly safeAtOrAfter: Int32Array;
  /** [k] = position of the k-th (0-based) conversation turn of the session the index was built over (built on first access). */
  readonly convPositions: Int32Array;
  /** Tool calls and results of the whole session the index was built over (built on first access; masking reads it). */
  readonly cycles: CycleIndex;
}

/**
 * Where the tool calls and their results are, for prefix queries in O(log n): a *call* is a
 * position some later turn answers (its cycleStart); a *result* is a turn whose cycleStart
 * lies before it. Arrays cover the whole session; a query names the prefix end.
 */
export interface CycleIndex {
  /** Positions of the calls, ascending. */
  readonly callPos: Int32Array;
  /** [k] = the first result position answering callPos[k]. */
  readonly callFirstResult: Int32Array;
  /** callFirstResult sorted ascending: how many calls are answered before a position. */
  readonly firstResultsSorted: Int32Array;
  /** [p] = calls answered before p (= countBelow(firstResultsSorted, p)), in O(1). */
  readonly answeredCountPrefix: Int32Array;
  /** [p] = calls at positions < p (= countBelow(callPos, p)), in O(1). */
  readonly callCountPrefix: Int32Array;
  /** Prefix sums over result turns ([i] covers positions [0, i)). */
  readonly resultCountPrefix: Int32Array;
  readonly resultTokenPrefix: Float64Array;
  readonly resultCharPrefix: Float64Array;
  /** [b] = the last result position < b, or -1. */
  readonly lastResultBefore: Int32Array;
  /** [p] = turn p's cycleStart when it lies before p (turn p answers a call), else 2^31 − 1: scans for late results read numbers, not turns. */
  readonly answersFrom: Int32Array;
  /** [k] = max(callFirstResult[0..k]): when it is below a position p, calls 0..k are all answered before p (masking reads its boundary instead of scanning for it). */
  readonly firstResultMax: Int32Array;
  /** [k] = the last result of any of calls 0..k: no result of a call before callPos[k + 1] lies after it (where a scan for late results can stop). */
  readonly lastResultMax: Int32Array;
}

function computeCycleIndex(turns: readonly TurnMeta[]): CycleIndex {
  const n = turns.length;
  const firstResult = new Int32Array(n).fill(-1);
  const lastResult = new Int32Array(n).fill(-1);
  const resultCountPrefix = new Int32Array(n + 1);
  const resultTokenPrefix = new Float64Array(n + 1);
  const resultCharPrefix = new Float64Array(n + 1);
  const lastResultBefore = new Int32Array(n + 1);
  const answersFrom = new Int32Array(n);
  lastResultBefore[0] = -1;
  let calls = 0;
  for (let i = 0; i < n; i++) {
    const t = turns[i];
    const cs = t.cycleStart;
    answersFrom[i] = cs < t.position ? cs : 0x7fffffff;
    const isResult = cs < t.position && cs >= 0;
    if (isResult && firstResult[cs] === -1) {
      firstResult[cs] = i;
      calls++;
    }
    if (isResult) lastResult[cs] = i;
    resultCountPrefix[i + 1] = resultCountPrefix[i] + (isResult ? 1 : 0);
    resultTokenPrefix[i + 1] = resultTokenPrefix[i] + (isResult ? t.tokenCount : 0);
    resultCharPrefix[i + 1] = resultCharPrefix[i] + (isResult ? t.charCount : 0);
    lastResultBefore[i + 1] = isResult ? i : lastResultBefore[i];
  }
  const callPos = new Int32Array(calls);
  const callFirstResult = new Int32Array(calls);
  const firstResultMax = new Int32Array(calls);
  const lastResultMax = new Int32Array(calls);
  for (let p = 0, k = 0; p < n; p++) {
    if (firstResult[p] >= 0) {
      callPos[k] = p;
      callFirstResult[k] = firstResult[p];
      firstResultMax[k] = k > 0 ? Math.max(firstResultMax[k - 1], firstResult[p]) : firstResult[p];
      lastResultMax[k] = k > 0 ? Math.max(lastResultMax[k - 1], lastResult[p]) : lastResult[p];
      k++;
    }
  }
  const firstResultsSorted = callFirstResult.slice().sort();
  // Counts per position, then prefix sums: a masking step asks both counts before every tool cycle.
  const answeredCountPrefix = new Int32Array(n + 1);
  const callCountPrefix = new Int32Array(n + 1);
  for (let k = 0; k < calls; k++) {
    answeredCountPrefix[callFirstResult[k] + 1]++;
    callCountPrefix[callPos[k] + 1]++;
  }
  for (let p = 0; p < n; p++) {
    answeredCountPrefix[p + 1] += answeredCountPrefix[p];
    callCountPrefix[p + 1] += callCountPrefix[p];
  }
  return { callPos, callFirstResult, firstResultsSorted, answeredCountPrefix, callCountPrefix, resultCountPrefix, resultTokenPrefix, resultCharPrefix, lastResultBefore, answersFrom, firstResultMax, lastResultMax };
}

/** The number of values in a sorted array that are < x (binary search). */
export function countBelow(sorted: Int32Array | Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Prefix sums over every turn of one count field. */
function allTurnsPrefix(turns: readonly TurnMeta[], field: 'tokenCount' | 'charCount'): Float64Array {
  const prefix = new Float64Array(turns.length + 1);
  for (let i = 0; i < turns.length; i++) prefix[i + 1] = prefix[i] + turns[i][field];
  return prefix;
}

/**
 * Builds the index for one plan. `turns[i].position` must equal i (the store and
 * `turnMetasOf` guarantee it); cycleStart values are clamped into [0, position].
 * Cost: three passes and five typed arrays over one buffer; the all-turn prefix arrays are built only if
 * a planner reads them (a plan on 100,000 turns allocates what it uses, nothing more).
 */
export function buildSpanIndex(turns: readonly TurnMeta[]): SpanIndex {
  // Turn arrays are never mutated (planner inputs are immutable): one index per array, so a
  // pass re-planning what its planner just planned, or a slider frame over the same session,
  // does not rebuild it. The length check guards against an array that grew anyway.
  if (lastGrown !== null && lastGrown.prefix === turns && lastGrown.view.count === turns.length) return lastGrown.view;
  const known = built.get(turns);
  if (known && known.count === turns.length) return known;
  const ix = computeSpanIndex(turns);
  built.set(turns, ix);
  return ix;
}

const built = new WeakMap<readonly TurnMeta[], SpanIndex>();

/**
 * The index of `prefix` (the first turns of the session `full` was built over) as a view on
 * `full`'s arrays, in O(1): prefix sums of a prefix are the prefix of the prefix sums. Cut
 * safety is the full session's, except that the prefix's own end is always safe. The live
 * replay hands each prefix it plans on to here first (buildSpanIndex then finds its view), so
 * planning before every call rescans nothing.
 */
export function prefixIndex(full: SpanIndex, prefix: readonly TurnMeta[]): SpanIndex {
  const n = prefix.length;
  if (n > full.count) throw new Error(`prefixIndex: ${n} turns is longer than the ${full.count}-turn session`);
  // The live replay grows ONE prefix array call by call: its view moves with it (no object or
  // WeakMap entry per call). A view handed out earlier for a shorter length is stale anyway:
  // buildSpanIndex rebuilds when the count does not match the array.
  // The array the live replay grew last: no WeakMap lookup per call.
  if (lastGrown !== null && lastGrown.prefix === prefix && lastGrown.full === full) return moveView(lastGrown.view, n);
  const known = views.get(prefix);
  const view = known && known.full === full ? moveView(known.view, n) : viewOf(full, n);
  // The prefix is held in this one slot, not in the WeakMaps: V8's young collector keeps a
  // WeakMap entry whose key and value are young alive, so a replay's grown array (~100k
  // entries) and its views would be promoted with it. Only a prefix another run's displaces
  // (two runs interleaved at their awaits) is filed there.
  if (lastGrown !== null) fileView(lastGrown.prefix, lastGrown.full, lastGrown.view);
  lastGrown = { prefix, full, view };
  return view;
}

function fileView(prefix: readonly TurnMeta[], full: SpanIndex, view: Mutable<SpanIndex>): void {
  views.set(prefix, { full, view });
  built.set(prefix, view);
}

/**
 * The index of the session's first `n` turns with no array behind it (a model-free live step
 * reads only the index): one view per session index, moved to `n` by each call — valid until
 * the next call, never to keep.
 */
export function spanIndexAt(full: SpanIndex, n: number): SpanIndex {
  if (n > full.count) throw new Error(`spanIndexAt: ${n} turns is longer than the ${full.count}-turn session`);
  // The session stepped last is checked first: a model-free live run steps before every call.
  let view = lastBare !== null && lastBare.full === full ? lastBare.view : bare.get(full);
  if (!view) bare.set(full, (view = viewOf(full, n)));
  if (lastBare === null || lastBare.full !== full) lastBare = { full, view };
  return moveView(view, n);
}

const bare = new WeakMap<SpanIndex, Mutable<SpanIndex>>();
/** The last stepped session's bare view (its WeakMap entry stays: this slot spares the lookup, and holds that session's index until another session is stepped). */
let lastBare: { full: SpanIndex; view: Mutable<SpanIndex> } | null = null;

function moveView(view: Mutable<SpanIndex>, n: number): SpanIndex {
  view.count = n;
  view.totalTokens = view.tokenPrefix[n];
  view.totalChars = view.charPrefix[n];
  return view;
}

/** A view of the first n turns of `full`'s session on its arrays. */
function viewOf(full: SpanIndex, n: number): Mutable<SpanIndex> {
  // Plain data properties, the session's lazy arrays built now (once per session): a live
  // replay reads them before every call, and a getter chain per read cost more than the read.
  return {
    count: n,
    totalTokens: full.tokenPrefix[n],
    totalChars: full.charPrefix[n],
    tokenPrefix: full.tokenPrefix,
    charPrefix: full.charPrefix,
    convTokenPrefix: full.convTokenPrefix,
    convCharPrefix: full.convCharPrefix,
    convCountPrefix: full.convCountPrefix,
    safeAtOrBefore: full.safeAtOrBefore,
    safeAtOrAfter: full.safeAtOrAfter,
    cycles: full.cycles,
    convPositions: full.convPositions,
  };
}

let lastGrown: { prefix: readonly TurnMeta[]; full: SpanIndex; view: Mutable<SpanIndex> } | null = null;

/**
 * Lets go of a prefix when its run ends (live.ts): held here until the next run, a replay's
 * grown array (~100k entries) would outlive it.
 */
export function releasePrefix(prefix: readonly TurnMeta[]): void {
  if (lastGrown !== null && lastGrown.prefix === prefix) lastGrown = null;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const views = new WeakMap<readonly TurnMeta[], { full: SpanIndex; view: Mutable<SpanIndex> }>();

function computeSpanIndex(turns: readonly TurnMeta[]): SpanIndex {
  const n = turns.length;
  // One backing buffer for the five arrays: one large allocation instead of five is
  // markedly cheaper for V8 (external memory accounting), ~28 bytes per turn in all.
  const len = n + 1;
  const buffer = new ArrayBuffer(len * 28);
  const convTokenPrefix = new Float64Array(buffer, 0, len);
  const convCharPrefix = new Float64Array(buffer, len * 8, len);
  const convCountPrefix = new Int32Array(buffer, len * 16, len);
  const safeAtOrAfter = new Int32Array(buffer, len * 20, len);
  const safeAtOrBefore = new Int32Array(buffer, len * 24, len);
  let totalTokens = 0;
  let totalChars = 0;
  for (let i = 0; i < n; i++) {
    const t = turns[i];
    totalTokens += t.tokenCount;
    totalChars += t.charCount;
    if (t.role !== 'system') {
      convTokenPrefix[i + 1] = convTokenPrefix[i] + t.tokenCount;
      convCharPrefix[i + 1] = convCharPrefix[i] + t.charCount;
      convCountPrefix[i + 1] = convCountPrefix[i] + 1;
    } else {
      convTokenPrefix[i + 1] = convTokenPrefix[i];
      convCharPrefix[i + 1] = convCharPrefix[i];
      convCountPrefix[i + 1] = convCountPrefix[i];
    }
  }
  // One backward pass: running suffix minimum of cycleStart decides safety of each cut,
  // and the nearest safe cut at or after b falls out of the same pass.
  safeAtOrAfter[n] = n;
  let suffixMin = n;
  for (let b = n - 1; b >= 0; b--) {
    const cs = turns[b].cycleStart;
    if (cs < suffixMin) suffixMin = cs;
    safeAtOrAfter[b] = suffixMin >= b ? b : safeAtOrAfter[b + 1];
  }
  for (let b = 0; b <= n; b++) safeAtOrBefore[b] = safeAtOrAfter[b] === b ? b : safeAtOrBefore[b - 1];
  let tokenPrefix: Float64Array | null = null;
  let charPrefix: Float64Array | null = null;
  let cycles: CycleIndex | null = null;
  let convPositions: Int32Array | null = null;
  return {
    count: n,
    totalTokens,
    totalChars,
    get tokenPrefix() {
      return (tokenPrefix ??= allTurnsPrefix(turns, 'tokenCount'));
    },
    get charPrefix() {
      return (charPrefix ??= allTurnsPrefix(turns, 'charCount'));
    },
    get cycles() {
      return (cycles ??= computeCycleIndex(turns));
    },
    get convPositions() {
      if (!convPositions) {
        convPositions = new Int32Array(convCountPrefix[n]);
        for (let i = 0; i < n; i++) if (convCountPrefix[i + 1] > convCountPrefix[i]) convPositions[convCountPrefix[i]] = i;
      }
      return convPositions;
    },
    convTokenPrefix,
    convCharPrefix,
    convCountPrefix,
    safeAtOrBefore,
    safeAtOrAfter,
  };
}

/**
 * True iff cutting before position b separates no tool_use from its tool_result. On a prefix
 * view (the turns before a call of the live replay) safety is the session's: a call still open
 * at that call, whose result arrives later, is never cut from it (so the prefix's own end is
 * unsafe while a call before it is open).
 */
export function isSafeCut(ix: SpanIndex, b: number): boolean {
  const c = clampCut(ix, b);
  return ix.safeAtOrAfter[c] === c;
}

/** The largest safe cut <= b (0 at worst). Used to move a protected-tail start EARLIER. */
export function safeCutAtOrBefore(ix: SpanIndex, b: number): number {
  return ix.safeAtOrBefore[clampCut(ix, b)];
}

/**
 * The smallest safe cut >= b, or `count` when it lies beyond the turns there are (then
 * `count` itself may be unsafe on a prefix view: check isSafeCut). Used to extend a batch to
 * include pending tool results.
 */
export function safeCutAtOrAfter(ix: SpanIndex, b: number): number {
  const after = ix.safeAtOrAfter[clampCut(ix, b)];
  return after > ix.count ? ix.count : after;
}

function clampCut(ix: SpanIndex, b: number): number {
  return b < 0 ? 0 : b > ix.count ? ix.count : b;
}

/** Tokens of all turns in [from, to). */
export function tokensIn(ix: SpanIndex, from: number, to: number): number {
  return ix.tokenPrefix[to] - ix.tokenPrefix[from];
}

/** Tokens of the conversation (non-system) turns in [from, to). */
export function convTokensIn(ix: SpanIndex, from: number, to: number): number {
  return ix.convTokenPrefix[to] - ix.convTokenPrefix[from];
}

/** Characters of the conversation (non-system) turns in [from, to). */
export function convCharsIn(ix: SpanIndex, from: number, to: number): number {
  return ix.convCharPrefix[to] - ix.convCharPrefix[from];
}

/** Number of conversation (non-system) turns in [from, to). */
export function convCountIn(ix: SpanIndex, from: number, to: number): number {
  return ix.convCountPrefix[to] - ix.convCountPrefix[from];
}

/**
 * Position of the k-th (0-based) conversation turn; `count` when there are not that many.
 * O(1) on the session's table of conversation-turn positions (a binary search over
 * convCountPrefix for a fractional k). Used by rolling (its pointer counts non-system
 * turns) and by window/forgetting (which count messages, not system prompts).
 */
export function positionOfConvTurn(ix: SpanIndex, k: number): number {
  if (k < 0) return 0;
  // Locals, not `ix.` in the loop: an index and its prefix views have different shapes, and
  // a polymorphic property load per step made this search ~10x slower on a slider frame.
  const count = ix.count;
  const convCountPrefix = ix.convCountPrefix;
  if (k >= convCountPrefix[count]) return count;
  // An integer k: the session's own table (the k-th conversation turn of a prefix is the session's).
  if ((k | 0) === k) return ix.convPositions[k];
  // smallest p with convCountPrefix[p + 1] > k
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (convCountPrefix[mid + 1] > k) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The largest p in [from, to] with prefix[p] - prefix[from] <= amount (binary search;
 * prefix sums are non-decreasing).
 */
export function lastCutWithin(prefix: Float64Array, from: number, to: number, amount: number): number {
  const limit = prefix[from] + amount;
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (prefix[mid] <= limit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The smallest p in (from, to] with prefix[p] - prefix[from] >= amount, or `to` if the
 * range never reaches it. "Collect until the length reaches the target, the crossing
 * turn included" (rolling) is exactly this cut.
 */
export function firstCutReaching(prefix: Float64Array, from: number, to: number, amount: number): number {
  const goal = prefix[from] + amount;
  let lo = from + 1;
  let hi = to;
  if (lo > hi) return to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (prefix[mid] >= goal) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** What chunk sizes are measured in: tokens or characters, of conversation turns only (system turns weigh 0). */
export type ChunkMeasure = 'tokens' | 'chars';

/**
 * Cuts [from, to) into consecutive chunks of about `target` (tokens or characters of the
 * conversation turns), returned as half-open [from, to) pairs covering the range exactly.
 *
 * The rule (shared by dag leaf chunks and two-line chunks):
 * - a chunk closes BEFORE the turn that would push it past `target`;
 * - a single turn larger than `target` is a chunk of its own;
 * - a chunk ends only at a tool-cycle-safe cut: when the size rule's cut is unsafe it
 *   moves back to the nearest safe cut inside the chunk; when there is none (one tool
 *   cycle larger than the target) it moves forward to the next safe cut, so the chunk
 *   grows past the target rather than splitting a tool_use from its tool_result.
 * `to` itself is taken as given (callers pass a safe cut or the session end).
 * Cost: O(chunks × log n).
 */
export function chunkRange(ix: SpanIndex, from: number, to: number, target: number, measure: ChunkMeasure = 'tokens'): Array<[number, number]> {
  const prefix = measure === 'tokens' ? ix.convTokenPrefix : ix.convCharPrefix;
  const chunks: Array<[number, number]> = [];
  let start = from;
  while (start < to) {
    let cut = lastCutWithin(prefix, start, to, target);
    // lastCutWithin takes the LARGEST fitting cut, so zero-weight (system) turns right
    // after the limit ride along with this chunk instead of opening the next one.
    if (cut <= start) cut = start + 1; // the next turn alone exceeds the target: its own chunk
    if (cut < to) {
      const safeBack = safeCutAtOrBefore(ix, cut);
      if (safeBack > start) cut = safeBack;
      else cut = Math.min(safeCutAtOrAfter(ix, cut), to);
    }
    chunks.push([start, cut]);
    start = cut;
  }
  return chunks;
}

/**
 * Ids of the conversation turns in [from, to) (system turns skipped: they are never
 * summarized). The one per-span allocation a plan needs.
 */
export function convTurnIds(turns: readonly TurnMeta[], from: number, to: number, ix?: SpanIndex): number[] {
  // Counted first (in O(1) from `ix`, the index of `turns`, when given), then filled: an array
  // of its final size, not one regrown ~15 times (a live replay's firings list ~100,000 ids
  // in all, and the regrowth was most of their garbage).
  let count = 0;
  if (ix) count = to > from ? convCountIn(ix, from, to) : 0;
  else for (let p = from; p < to; p++) if (turns[p].role !== 'system') count++;
  const ids = new Array<number>(count);
  for (let p = from, k = 0; p < to; p++) if (turns[p].role !== 'system') ids[k++] = turns[p].id;
  return ids;
}

/**
 * The conversation turns of [from, to) (which must hold at least one): their ids (listed when
 * first read), and the positions of the first and the last (system turns at the edges are skipped).
 */
export function convSpan(turns: readonly TurnMeta[], from: number, to: number, ix?: SpanIndex): { readonly turnIds: number[]; first: number; last: number } {
  let first = from;
  while (turns[first].role === 'system') first++;
  let last = to - 1;
  while (turns[last].role === 'system') last--;
  // The ids listed on first read (shared/lazy.ts, as makeSpan's): a live replay's
  // projection writes its summaries to memory and never reads them (~100,000 per projection).
  return withLazy<{ readonly turnIds: number[]; first: number; last: number }, 'turnIds'>({}, 'turnIds', () => convTurnIds(turns, from, to, ix), { first, last });
}

/**
 * A PlanSpan over the conversation turns of [from, to): turnIds, tokens and chars exclude
 * system turns; firstPosition/lastPosition are the first and last conversation turn
 * (inclusive). Returns null when the range holds no conversation turn.
 */
export function makeSpan(
  turns: readonly TurnMeta[],
  ix: SpanIndex,
  args: { id: string; purpose: PlanSpan['purpose']; from: number; to: number; targetTokens: number; priorSummaryId?: number | null },
): PlanSpan | null {
  const count = convCountIn(ix, args.from, args.to);
  if (count === 0) return null;
  // The ids are listed on first read (shared/lazy.ts: spreads, JSON and deep equality see a
  // plain array): a live replay that plans before every call rarely reads them.
  const listIds = () => {
    // Exact length known from the prefix counts: no array growth on 100,000-turn plans.
    const ids = new Array<number>(count);
    for (let p = args.from, k = 0; p < args.to; p++) if (turns[p].role !== 'system') ids[k++] = turns[p].id;
    return ids;
  };
  let first = args.from;
  while (turns[first].role === 'system') first++;
  let last = args.to - 1;
  while (turns[last].role === 'system') last--;
  const span = withLazy<PlanSpan, 'turnIds'>(
    { id: args.id, purpose: args.purpose, firstPosition: first, lastPosition: last },
    'turnIds',
    listIds,
    { tokens: convTokensIn(ix, args.from, args.to), chars: convCharsIn(ix, args.from, args.to), targetTokens: args.targetTokens },
    { settable: true },
  );
  if (args.priorSummaryId !== undefined) span.priorSummaryId = args.priorSummaryId;
  return span;
}

/**
 * Merges [first, last] inclusive position intervals into sorted disjoint ones (touching
 * intervals merge). Used for the coverage of existing summaries and dropped ranges.
 */
export function mergeIntervals(intervals: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const sorted = intervals.map(([a, b]) => [a, b] as [number, number]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) {
      if (b > last[1]) last[1] = b;
    } else out.push([a, b]);
  }
  return out;
}

/**
 * The parts of [from, to) NOT covered by `covered` (sorted, disjoint, inclusive
 * intervals as mergeIntervals returns), as half-open [from, to) gaps in order.
 */
export function uncoveredGaps(covered: ReadonlyArray<readonly [number, number]>, from: number, to: number): Array<[number, number]> {
  const gaps: Array<[number, number]> = [];
  let cursor = from;
  for (const [a, b] of covered) {
    if (b < cursor) continue;
    if (a >= to) break;
    if (a > cursor) gaps.push([cursor, Math.min(a, to)]);
    cursor = Math.max(cursor, b + 1);
    if (cursor >= to) break;
  }
  if (cursor < to) gaps.push([cursor, to]);
  return gaps;
}

/**
 * Conversation tokens inside `ranges` (sorted, disjoint, inclusive position intervals,
 * e.g. VariantState.droppedRanges). System turns inside weigh 0: they are never dropped.
 */
export function convTokensInRanges(ix: SpanIndex, ranges: ReadonlyArray<readonly [number, number]>): number {
  let sum = 0;
  for (const [a, b] of ranges) sum += convTokensIn(ix, clampCut(ix, a), clampCut(ix, b + 1));
  return sum;
}

/**
 * mergeIntervals over flat pairs: inclusive intervals in any order, overlapping or not, as
 * `flat[0 .. 2 × count)` (a0, b0, a1, b1…), sorted there in place (insertion sort: a live
 * replay's are nearly sorted already). No tuple per input interval: the live loop and dag's
 * view ask this at every firing, over every summary so far.
 */
export function mergeFlatIntervals(flat: number[], count: number): Array<[number, number]> {
  for (let i = 1; i < count; i++) {
    const a = flat[2 * i];
    const b = flat[2 * i + 1];
    let j = i - 1;
    while (j >= 0 && (flat[2 * j] > a || (flat[2 * j] === a && flat[2 * j + 1] > b))) {
      flat[2 * j + 2] = flat[2 * j];
      flat[2 * j + 3] = flat[2 * j + 1];
      j--;
    }
    flat[2 * j + 2] = a;
    flat[2 * j + 3] = b;
  }
  const out: Array<[number, number]> = [];
  let i = 0;
  while (i < count) {
    const a = flat[2 * i];
    let b = flat[2 * i + 1];
    i++;
    // mergeIntervals' rule: overlapping or adjacent intervals are one.
    while (i < count && flat[2 * i] <= b + 1) {
      if (flat[2 * i + 1] > b) b = flat[2 * i + 1];
      i++;
    }
    out.push([a, b]);
  }
  return out;
}

/** convTokensInRanges(ix, mergeIntervals(pairs)) for flat pairs (mergeFlatIntervals; `flat` is sorted in place). */
export function convTokensInUnion(ix: SpanIndex, flat: number[], count: number): number {
  return convTokensInRanges(ix, mergeFlatIntervals(flat, count));
}

/** Conversation turns inside `ranges` (sorted, disjoint, inclusive). */
export function convCountInRanges(ix: SpanIndex, ranges: ReadonlyArray<readonly [number, number]>): number {
  let sum = 0;
  for (const [a, b] of ranges) sum += convCountIn(ix, clampCut(ix, a), clampCut(ix, b + 1));
  return sum;
}

/**
 * Position of the k-th (0-based) conversation turn of the *view*: the conversation turns
 * outside `ranges` (sorted, disjoint, inclusive), as amortized forgetting sees its
 * condensed history. `count` when the view has fewer turns. O(ranges + log n).
 */
export function positionInView(ix: SpanIndex, ranges: ReadonlyArray<readonly [number, number]>, k: number): number {
  let cursor = 0;
  let remaining = k;
  for (const [a, b] of ranges) {
    const before = convCountIn(ix, cursor, clampCut(ix, a));
    if (remaining < before) break;
    remaining -= before;
    cursor = clampCut(ix, b + 1);
  }
  return positionOfConvTurn(ix, ix.convCountPrefix[cursor] + remaining);
}

/**
 * A whole number with thousands separators ("200,000") for plan reasons and labels.
 * Not toLocaleString('en-US'): that builds an Intl formatter per call, which cost a
 * planner running on every slider frame about a millisecond.
 */
export function formatCount(n: number): string {
  const s = String(Math.round(Math.abs(n)));
  return (n < 0 ? '-' : '') + s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
