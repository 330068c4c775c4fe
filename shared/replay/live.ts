/**
 * The live replay: a session walked model call by model call under a variant, as a live
 * agent runs it. Before each call the variant's trigger is evaluated on what the model
 * would receive at that moment (summaries made so far + uncovered turns + overhead);
 * when it fires, the strategy's own pass runs there, on the turns before the call, and
 * writes into an in-memory store; the walk goes on with the smaller context.
 *
 * The same loop serves the engine's real replay (electron/engine/replay.ts: the
 * variant's summarizer, cache and cancellation) and the window's projected timeline
 * (shared/replay/projection.ts: summaries of their target size, no summarizer call).
 * It knows no strategy by name: the definition gives the pass, the view's planner and a
 * cheap necessary condition `live.mayFire` so the planner runs only near firings.
 *
 * Two counts of the context at each call, both by shared/usage/measure.ts `readContext`:
 * what the model received (the cost model: the session's calibrated context model, priced
 * per call) and what the variant's thresholds compare with (its `contextMeasure`). They are
 * the same figure unless the variant measures raw transcript tokens.
 *
 * The executable specification of each strategy's rule is shared/replay/reference/: plain
 * loops evaluated at every call; `replay --check` and test/node/replay-reference.test.ts
 * hold this loop to it.
 *
 * Costs per call (prompt caching) are computed from the records by shared/cost/.
 */
import { withLazy } from '../lazy.js';
import { visibleTokens, type PreparedStrategy } from '../strategies/index.js';
import type { LiveMeasure, LiveStep } from '../strategies/strategy.js';
import { preMaskWindowOf, stageMetas } from '../strategies/mask-stage.js';
import { buildSpanIndex, convTokensInUnion, prefixIndex, releasePrefix, spanIndexAt, type SpanIndex } from '../strategies/spans.js';
import { growingPrefixes, reusedPrefixes } from './prefix-arrays.js';
import type { VariantState } from '../strategies/types.js';
import type { TurnMeta } from '../model/turn.js';
import type { AbortSignalLike } from '../strategies/summarizer.js';
import type { PassContext, PassOutcome } from '../passes/context.js';
import type { MemoryVariantStore } from './memory-store.js';
import { contextTokens, measureChoiceOf, resolveMeasure, type ContextMeasure, type MeasureInput, type ReportedContext } from '../usage/measure.js';

/** One model call of the session: the assistant turn at `position` answered turns [0, position). */
export interface LiveCall {
  position: number;
  timestampMs: number | null;
  outputTokens: number;
  /**
   * The context the source reported for this call, when it really sent the uncompacted
   * transcript (before its own first compaction) and the figure is trusted. Until the
   * variant first changes the view, this IS what the model received: it is used instead
   * of the context model, which is only for contexts that were never sent.
   */
  reportedContext?: number | null;
}

/**
 * Context size as a live agent measures it: `a + b × view tokens`, where the view is the
 * transcript the variant shows (o200k counts) and a (system prompt, tool schemas) and b
 * (the provider tokenizer's ratio) come from the session's reported usage
 * (shared/usage/overhead.ts), else a = overheadTokens, b = 1.
 */
export interface ContextModel {
  a: number;
  b: number;
  /** 'fit': a and b are the session's usage fit; 'parameter': a constant overhead (no usage to fit). Absent: 'fit'. */
  source?: 'fit' | 'parameter';
}

/** The cost model as a calibrated measure (what the model received, whatever the variant's thresholds count). */
export const costMeasureOf = (m: ContextModel): ContextMeasure => ({ name: 'calibrated', fixed: m.a, ratio: m.b, source: m.source === 'parameter' ? 'parameter' : 'fit' });

/** The variant's trigger measure for a session with this context model (its `contextMeasure` parameter resolved). */
export function triggerMeasureOf(params: Readonly<Record<string, unknown>>, m: ContextModel): ContextMeasure {
  return resolveMeasure(measureChoiceOf(params), m.source === 'parameter' ? null : { a: m.a, b: m.b }, m.a);
}

export const contextOf = (m: ContextModel, viewTokens: number): number => Math.round(m.a + m.b * viewTokens);

/**
 * The per-call output of a live replay, one typed array per field (index = call): a
 * replay of 100,000 turns writes ~50,000 calls on every slider frame, and a record object
 * per call cost more than the loop itself. `liveCallRecord` reads one call as an object.
 */
export interface LiveCalls {
  count: number;
  position: Int32Array;
  /** Tokens of the raw transcript before the call (no compaction). */
  transcriptTokens: Float64Array;
  /** Tokens of the variant's view before the call (transcript units). */
  viewTokens: Float64Array;
  /** What the model received: contextOf(view). */
  contextTokens: Float64Array;
  /** Leading tokens identical to the previous call's prompt (prompt-cache reuse); 0 for the first call. */
  sharedPrefixTokens: Float64Array;
  outputTokens: Float64Array;
  /** NaN where the source recorded no time. */
  timestampMs: Float64Array;
  /** 1 where the variant's view changed before the call (a firing or a commit landed). */
  fired: Uint8Array;
}

/** One call of a live replay, as an object (tests and readouts; the loop writes columns). */
export interface LiveCallRecord {
  call: number;
  position: number;
  transcriptTokens: number;
  viewTokens: number;
  contextTokens: number;
  sharedPrefixTokens: number;
  outputTokens: number;
  timestampMs: number | null;
  fired: boolean;
}

export function liveCallRecord(c: LiveCalls, k: number): LiveCallRecord {
  const t = c.timestampMs[k];
  return { call: k, position: c.position[k], transcriptTokens: c.transcriptTokens[k], viewTokens: c.viewTokens[k], contextTokens: c.contextTokens[k], sharedPrefixTokens: c.sharedPrefixTokens[k], outputTokens: c.outputTokens[k], timestampMs: Number.isNaN(t) ? null : t, fired: c.fired[k] === 1 };
}

export function newLiveCalls(n: number): LiveCalls {
  // One backing buffer for every column (as spans.ts does): one external allocation per
  // projection instead of eight, which V8 accounts for (and collects) much more cheaply.
  const f64 = 6 * 8 * n;
  const buffer = new ArrayBuffer(f64 + 4 * n + n);
  const col = (k: number) => new Float64Array(buffer, k * 8 * n, n);
  return { count: n, transcriptTokens: col(0), viewTokens: col(1), contextTokens: col(2), sharedPrefixTokens: col(3), outputTokens: col(4), timestampMs: col(5), position: new Int32Array(buffer, f64, n), fired: new Uint8Array(buffer, f64 + 4 * n, n) };
}

export interface LiveFiring {
  call: number;
  position: number;
  /** 'fire': the trigger fired and the pass ran; 'commit': work deferred by an earlier firing landed (two-line's background pass). */
  kind: 'fire' | 'commit';
  reason: string;
  /** What the model received at the call before the firing, and after it (the cost model). */
  contextBefore: number;
  contextAfter: number;
  /** The context by the variant's measure before the firing: what its whole-context threshold compared (NaN for the turn-count rules' steps). */
  measured: number;
  created: number[];
  compacted: number[];
  /** Deepest summary created. */
  maxDepth: number;
  stats: Record<string, unknown>;
  /**
   * What the firing's summarizer calls cost (from LiveOptions.work; zeros when not measured).
   * A commit carries the work of the pass that scheduled it (made at `scheduledAt`), an
   * abandoned one included: its summarizing was paid for although nothing landed.
   */
  work: LiveWork;
  /** A commit: the call where its pass was scheduled and summarized. */
  scheduledAt?: number;
  /** The variant's strategy state right after the firing (what the view needs from then on). */
  state: VariantState;
}

export interface LiveWork {
  summarizerCalls: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  latencyMs: number;
}

const NO_WORK: LiveWork = { summarizerCalls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0, latencyMs: 0 };

export interface LiveOptions {
  prepared: PreparedStrategy;
  /** Every turn of the session (index = position). */
  metas: readonly TurnMeta[];
  calls: readonly LiveCall[];
  model: ContextModel;
  store: MemoryVariantStore;
  /** The pass context for a firing over turns [0, end) (planner view already staged), with the variant's measure and the call's reported figure. */
  context(end: number, metas: TurnMeta[], measured: Required<MeasureInput>, backgroundPending: boolean): PassContext;
  /** Model calls after which deferred work commits (two-line's background pass). Default 1. */
  commitDelayCalls?: number;
  signal?: AbortSignalLike;
  onProgress?(done: number, total: number, firings: number): void;
  /** Running totals of the summarizer's work; a firing records the difference. */
  work?(): LiveWork;
  /** What the variant's thresholds count (default: its `contextMeasure` resolved against `model`, triggerMeasureOf). */
  measure?: ContextMeasure;
  /**
   * Default true: model-free strategies run their `live.step` instead of their pass, and
   * calls that need no await run in a synchronous loop. False walks every call on the async
   * path and runs every pass through the full machinery: the reference the fast path is
   * tested against (test/node/replay-fast.test.ts).
   */
  fastSteps?: boolean;
  /** Called before each call's work; may yield to the event loop (the engine uses it for cancellation). */
  beforeCall?(call: number): Promise<void> | void;
  /**
   * The window's projection: the turns before each call come from arrays its session keeps
   * from one run to the next (prefix-arrays.ts), so nothing may read them after the run (a
   * replay's stored summaries list their turn ids from them afterwards: not for replays).
   */
  reusePrefixes?: boolean;
}

export interface LiveResult {
  calls: LiveCalls;
  firings: LiveFiring[];
  state: VariantState;
}

/** Shared by every step firing (a model-free step creates and folds no summary); never written to. */
const NONE: number[] = [];
type Ranges = ReadonlyArray<readonly [number, number]>;
const NO_RANGES: Ranges = [];
const NO_INTS = new Int32Array(0);
const NO_FLOATS = new Float64Array(0);

/**
 * The model-free steps of one live run: numbers while the loop runs, firings when first read.
 * A window or masking replay of 100,000 turns fires at ~50,000 calls: keeping each firing's
 * object, state and facts while the loop ran (five or six small objects a call, all alive
 * across the young generation's collections) cost more than the steps themselves. Steps are
 * pure and deterministic, so the loop keeps only where each fired (its call, position and the
 * context before it) and the state before the first; the firings are built when the result's
 * `firings` is first read, and a firing's state, reason and stats are derived when read, by
 * running the same steps again, in order, from that state, up to the one asked for.
 */
class StepLog {
  /** Step firings so far. */
  count = 0;
  /** Per step firing, in order: its call, the position of its call, and the context before it (sized for one per call, at the first). */
  private calls = NO_INTS;
  private positions = NO_INTS;
  private before = NO_FLOATS;
  /** The steps derived so far (a read derives up to the step it asks for: the first firings listed cost only themselves). */
  private readonly derived: LiveStep[] = [];
  private readonly prefix: TurnMeta[] = [];
  private state: VariantState;

  constructor(
    /** The run's calls: at most one step fires per call. */
    private readonly capacity: number,
    private readonly metas: readonly TurnMeta[],
    private readonly ix: SpanIndex,
    private readonly apply: NonNullable<PreparedStrategy['definition']['live']['step']>,
    private readonly params: PreparedStrategy['params'],
    initial: VariantState,
    readonly describe: (step: LiveStep, position: number) => { reason: string; stats: Record<string, unknown> },
  ) {
    this.state = initial;
  }

  /** Records a step firing (the loop's only per-firing work). */
  fired(call: number, position: number, contextBefore: number): void {
    if (this.count === 0) {
      const buffer = new ArrayBuffer(16 * this.capacity);
      this.before = new Float64Array(buffer, 0, this.capacity);
      this.calls = new Int32Array(buffer, 8 * this.capacity, this.capacity);
      this.positions = new Int32Array(buffer, 12 * this.capacity, this.capacity);
    }
    const i = this.count++;
    this.calls[i] = call;
    this.positions[i] = position;
    this.before[i] = contextBefore;
  }

  /** The firings, built from the recorded numbers (`contextAfter`: what the model received at the call). */
  firings(calls: LiveCalls): LiveFiring[] {
    const n = this.count;
    const out = new Array<LiveFiring>(n);
    for (let i = 0; i < n; i++) out[i] = new StepFiring(this.calls[i], this.positions[i], this.before[i], calls.contextTokens[this.calls[i]], this, i);
    return out;
  }

  /** The step that fired i-th. */
  at(i: number): LiveStep {
    const out = this.derived;
    if (i < out.length) return out[i];
    const prefix = this.prefix;
    let end = 0;
    const grown = () => {
      for (let p = prefix.length; p < end; p++) prefix.push(this.metas[p]);
      prefixIndex(this.ix, prefix);
      return prefix;
    };
    if (i >= this.count) throw new RangeError(`step firing ${i} of ${this.count}`);
    while (out.length <= i) {
      end = this.positions[out.length];
      const st = this.apply(spanIndexAt(this.ix, end), this.params as never, this.state, grown);
      if (!st) throw new Error(`a model-free step that fired at turn ${end} does not fire when derived again`);
      out.push(st);
      this.state = st.state;
    }
    return out[i];
  }
}

/** A model-free step's firing: numbers only; its state, reason and stats are derived when read (StepLog). */
class StepFiring implements LiveFiring {
  // What every step firing shares lives on the prototype: 50,000 small objects, not 50,000 large ones.
  get kind(): 'fire' {
    return 'fire';
  }
  get created(): number[] {
    return NONE;
  }
  get compacted(): number[] {
    return NONE;
  }
  get maxDepth(): number {
    return 0;
  }
  get work(): LiveWork {
    return NO_WORK;
  }
  get measured(): number {
    return NaN;
  }

  constructor(
    readonly call: number,
    readonly position: number,
    readonly contextBefore: number,
    readonly contextAfter: number,
    private readonly log: StepLog,
    private readonly index: number,
  ) {}

  get state(): VariantState {
    return this.log.at(this.index).state;
  }

  get reason(): string {
    return this.log.describe(this.log.at(this.index), this.position).reason;
  }

  get stats(): Record<string, unknown> {
    return this.log.describe(this.log.at(this.index), this.position).stats;
  }
}

/** Positions of the model calls: every assistant turn (a turn = one model call after the importers' grouping). */
export function callsOf(metas: readonly TurnMeta[], extra?: (position: number) => { timestampMs: number | null; outputTokens: number | null; reportedContext?: number | null }): LiveCall[] {
  // Without extras the calls are a function of the (immutable) turn array: one list per array, not one per slider frame.
  if (!extra) {
    const known = plainCalls.get(metas);
    if (known) return known;
  }
  const out: LiveCall[] = [];
  for (const m of metas) {
    if (m.role !== 'assistant') continue;
    const e = extra?.(m.position);
    out.push({ position: m.position, timestampMs: e?.timestampMs ?? null, outputTokens: e?.outputTokens ?? m.tokenCount, reportedContext: e?.reportedContext ?? null });
  }
  if (!extra) plainCalls.set(metas, out);
  return out;
}

const plainCalls = new WeakMap<readonly TurnMeta[], LiveCall[]>();

/** A call list as columns (the loop reads numbers, not 50,000 objects per projection); one per (immutable) list. */
interface CallColumns {
  position: Int32Array;
  /** NaN where the source reported no trusted context. */
  reported: Float64Array;
  output: Float64Array;
  /** NaN where the source recorded no time. */
  timestampMs: Float64Array;
}

function callColumns(calls: readonly LiveCall[]): CallColumns {
  const known = columnsOf.get(calls);
  if (known && known.position.length === calls.length) return known;
  const n = calls.length;
  const c: CallColumns = { position: new Int32Array(n), reported: new Float64Array(n), output: new Float64Array(n), timestampMs: new Float64Array(n) };
  for (let k = 0; k < n; k++) {
    const call = calls[k];
    c.position[k] = call.position;
    c.reported[k] = call.reportedContext ?? NaN;
    c.output[k] = call.outputTokens;
    c.timestampMs[k] = call.timestampMs ?? NaN;
  }
  columnsOf.set(calls, c);
  return c;
}

const columnsOf = new WeakMap<readonly LiveCall[], CallColumns>();

export async function runLive(o: LiveOptions): Promise<LiveResult> {
  return new LiveLoop(o).run();
}

/** Deferred work: where it lands, and what its summarizing cost where it was scheduled (charged to its commit). */
type Pending = { due: number; commit: (at: PassContext) => Promise<PassOutcome>; scheduledAt: number; work: LiveWork };

const addWork = (a: LiveWork, b: LiveWork): LiveWork => ({ summarizerCalls: a.summarizerCalls + b.summarizerCalls, tokensIn: a.tokensIn + b.tokensIn, tokensOut: a.tokensOut + b.tokensOut, costUsd: a.costUsd + b.costUsd, latencyMs: a.latencyMs + b.latencyMs });

/**
 * One live run. Its state is fields of one class and its steps are methods, not closures
 * made per run: a projection runs ~50,000 calls on every slider frame, and closures made
 * anew each run gave V8 new call targets every run (deoptimized, then called, not inlined)
 * and kept the run's numbers in context slots; the class's methods are the same functions
 * in every run, and its fields one stable shape.
 */
class LiveLoop {
  private readonly def: PreparedStrategy['definition'];
  private readonly delay: number;
  private readonly ix: SpanIndex;
  private readonly tokenPrefix: Float64Array;
  private readonly convCountPrefix: Int32Array;
  /** Tool results before each position: a new one is a completed tool cycle (the session's cycle index counts them once per turn array). */
  private readonly resultsPrefix: Int32Array;
  private readonly n: number;
  private readonly out: LiveCalls;
  private readonly positions: Int32Array;
  /** NaN where the source reported no trusted context. */
  private readonly reported: Float64Array;
  private readonly model: ContextModel;
  /** What the model received (the cost model) and what the variant's thresholds count. */
  private readonly costMeasure: ContextMeasure;
  private readonly triggerMeasure: ContextMeasure;
  private readonly store: MemoryVariantStore;
  private readonly firings: LiveFiring[] = [];
  /** The turns before the current call (prefix-arrays.ts): a projection reuses its session's arrays. */
  private readonly prefixes: ReturnType<typeof reusedPrefixes>;
  /** Model-free strategies step synchronously (never with a pre-stage: its view is restaged per call). */
  private readonly step: NonNullable<PreparedStrategy['definition']['live']['step']> | null;
  private readonly stepLog: StepLog | null;
  /** One measure object, refilled per call: mayFire reads it and keeps nothing. */
  private readonly measure: LiveMeasure;
  private readonly unionScratch: number[] = [];
  /** The turns before the step's call, listed only if the step asks (one function per run, not one closure per call). */
  private readonly stepTurns = () => this.prefixAt(this.stepEnd);
  private readonly fire = async (ctx: PassContext) => {
    const out = await this.def.pass(ctx, this.o.prepared.params);
    if (out.followUp) this.followUp = true;
    return out;
  };

  // The view's tokens and conversation turns as of `lastEnd` (recomputed after each firing).
  private view = 0;
  private viewTurns = 0;
  private lastEnd = 0;
  private cyclesAtFire = 0;
  private prevContext = 0;
  private pending: Pending | null = null;
  /** A firing found work pending and asked to run once more when it lands (one mark, however many crossings). */
  private followUp = false;
  private prefix: TurnMeta[] | null = null;
  private prefixEnd = -1;
  private stepEnd = 0;
  /**
   * The store's state's dropped ranges and mask boundary, read once per change (adopt): states
   * of every strategy have shapes of their own, and reading their fields at every call of a
   * window or masking run cost a megamorphic load each, several per call.
   */
  private ranges: Ranges = NO_RANGES;
  private maskBoundary: number | undefined = undefined;

  constructor(private readonly o: LiveOptions) {
    const { prepared, metas, calls, model, store } = o;
    this.def = prepared.definition;
    this.delay = Math.max(0, o.commitDelayCalls ?? 1);
    this.ix = buildSpanIndex(metas);
    this.tokenPrefix = this.ix.tokenPrefix;
    this.convCountPrefix = this.ix.convCountPrefix;
    this.resultsPrefix = this.ix.cycles.resultCountPrefix;
    // One shape for every run's model (callers pass wider objects): contextOf reads it at every call.
    this.model = { a: model.a, b: model.b };
    this.costMeasure = costMeasureOf(model);
    this.triggerMeasure = o.measure ?? triggerMeasureOf(prepared.params, model);
    this.store = store;
    const n = (this.n = calls.length);
    const out = (this.out = newLiveCalls(n));
    // What does not depend on the variant is copied in bulk: the calls' positions, outputs, times and transcript sizes.
    const cols = callColumns(calls);
    this.positions = cols.position;
    this.reported = cols.reported;
    out.position.set(cols.position);
    out.outputTokens.set(cols.output);
    out.timestampMs.set(cols.timestampMs);
    for (let k = 0; k < n; k++) out.transcriptTokens[k] = this.tokenPrefix[cols.position[k]];
    this.prefixes = o.reusePrefixes ? reusedPrefixes(metas) : growingPrefixes(metas);
    const live = this.def.live;
    this.step = o.fastSteps !== false && live.step && live.describeStep && preMaskWindowOf(prepared.params) === null ? live.step : null;
    // The firing's description reads the whole session's index at its position (the prefix view has moved on by then).
    const describeStep = (st: LiveStep, position: number) => live.describeStep!(metas, position, st);
    this.stepLog = this.step ? new StepLog(n, metas, this.ix, this.step, prepared.params, store.state(), describeStep) : null;
    this.measure = { contextTokens: 0, viewTokens: 0, viewTurns: 0, newToolCycles: 0, measure: this.triggerMeasure, end: 0, convTokenPrefix: this.ix.convTokenPrefix };
    this.adopt(store.state());
  }

  /** Reads the fields of the store's new state that the loop reads at every call. */
  private adopt(state: VariantState): void {
    this.ranges = state.droppedRanges ?? NO_RANGES;
    this.maskBoundary = state.maskBoundary;
  }

  /** Conversation turns of the view before position `end` under the state's dropped ranges (clipped to the prefix). */
  private viewTurnsOf(end: number, ranges: Ranges): number {
    const convCount = this.convCountPrefix;
    if (ranges.length === 0) return convCount[end];
    let dropped = 0;
    for (let i = 0; i < ranges.length; i++) {
      const r = ranges[i];
      if (r[0] < end) dropped += convCount[Math.min(r[1] + 1, end)] - convCount[r[0]];
    }
    return convCount[end] - dropped;
  }

  /** Recomputes the view after a firing: the strategy's planner on the turns before the call. */
  private recompute(end: number, prefix: TurnMeta[]): void {
    const state = this.store.state();
    // The one rule for the figure (visibleTokens: the strategy's live.visible when it has one).
    this.view = visibleTokens(this.o.prepared, { turns: prefix, summaries: this.store.summaries(), state });
    this.viewTurns = this.viewTurnsOf(end, this.ranges);
    this.lastEnd = end;
  }

  /** The view before the call at `end`: as of the last recompute, plus every turn added since (no strategy hides turns between firings). */
  private viewAt(end: number): number {
    return this.view + (this.tokenPrefix[end] - this.tokenPrefix[this.lastEnd]);
  }

  /** The source's figure for call k (null where it reported none it can be trusted for). */
  private reportedAt(k: number, end: number): ReportedContext | null {
    const reported = this.reported[k];
    return reported === reported ? { transcriptTokens: this.tokenPrefix[end], tokens: reported } : null;
  }

  /** What the model receives at call k (the cost model): the source's reported figure while the view is the transcript, else the context model. */
  private contextAt(k: number, end: number): number {
    return contextTokens(this.costMeasure, this.viewAt(end), this.reported[k], this.tokenPrefix[end]);
  }

  /** The context at call k as the variant's thresholds count it. */
  private measuredAt(k: number, end: number): number {
    return contextTokens(this.triggerMeasure, this.viewAt(end), this.reported[k], this.tokenPrefix[end]);
  }

  /** Tokens of the view before position x (after a firing): what the next prompt shares with the previous one. */
  private viewBefore(x: number): number {
    if (x <= 0) return 0;
    const store = this.store;
    const all = store.summaries();
    const ranges = this.ranges;
    const ix = this.ix;
    if (all.length === 0) {
      // Model-free strategies: only the stored ranges (sorted and disjoint, VariantState) hide turns.
      const conv = ix.convTokenPrefix;
      let hidden = 0;
      for (let i = 0; i < ranges.length; i++) {
        const r = ranges[i];
        if (r[0] < x) hidden += conv[Math.min(r[1] + 1, x)] - conv[r[0]];
      }
      return this.tokenPrefix[x] - hidden;
    }
    // The live summaries that end before x and the dropped ranges that start before it (cut at
    // x), as one union of intervals in a reused scratch array: this runs at every firing.
    const scratch = this.unionScratch;
    let m = 0;
    let summaryTokens = 0;
    for (const s of all) {
      if (s.compacted || s.lastPosition >= x) continue;
      scratch[2 * m] = s.firstPosition;
      scratch[2 * m + 1] = s.lastPosition;
      m++;
      summaryTokens += s.tokenCount;
    }
    for (const r of ranges) {
      if (r[0] >= x) continue;
      scratch[2 * m] = r[0];
      scratch[2 * m + 1] = Math.min(r[1], x - 1);
      m++;
    }
    return this.tokenPrefix[x] - convTokensInUnion(ix, scratch, m) + summaryTokens;
  }

  /** Where the view changed from: the first summary created or folded, else where the states differ. */
  private firstChanged(created: number[], compacted: number[], beforeRanges: Ranges, beforeMask: number | undefined): number {
    let x = Infinity;
    for (let i = 0; i < created.length; i++) {
      const s = this.store.get(created[i]);
      if (s) x = Math.min(x, s.firstPosition);
    }
    for (let i = 0; i < compacted.length; i++) {
      const s = this.store.get(compacted[i]);
      if (s) x = Math.min(x, s.firstPosition);
    }
    return Math.min(x, this.stateChangedFrom(beforeRanges, beforeMask));
  }

  /**
   * Where the view differs from under the state before (its ranges and mask boundary given) and
   * the adopted one: the first dropped range that differs (from its start on: a range only one
   * side has starts there), or the old mask boundary; Infinity when they agree.
   */
  private stateChangedFrom(a: Ranges, beforeMask: number | undefined): number {
    let x = Infinity;
    const b = this.ranges;
    const common = Math.min(a.length, b.length);
    let i = 0;
    while (i < common && a[i][0] === b[i][0] && a[i][1] === b[i][1]) i++;
    if (i < common) x = Math.min(x, a[i][0], b[i][0]);
    else if (i < a.length) x = Math.min(x, a[i][0]);
    else if (i < b.length) x = Math.min(x, b[i][0]);
    if (beforeMask !== this.maskBoundary) x = Math.min(x, beforeMask ?? 0);
    return x;
  }

  private async runAt(k: number, end: number, prefix: TurnMeta[], contextBefore: number, kind: LiveFiring['kind'], work: (ctx: PassContext) => Promise<PassOutcome>, scheduled?: Pending): Promise<{ changedAt: number; outcome: PassOutcome; spent: LiveWork } | null> {
    const { o, store, firings } = this;
    const before = store.state();
    const beforeRanges = this.ranges;
    const beforeMask = this.maskBoundary;
    store.callIndex = k;
    const measured = this.measuredAt(k, end);
    const ctx = o.context(end, stageMetas(o.prepared.params, prefix) as TurnMeta[], { measure: this.triggerMeasure, reported: this.reportedAt(k, end) }, this.pending !== null);
    const w0 = o.work?.() ?? NO_WORK;
    const started = Date.now();
    const outcome = await work(ctx);
    const w1 = o.work?.() ?? NO_WORK;
    const own: LiveWork = { summarizerCalls: w1.summarizerCalls - w0.summarizerCalls, tokensIn: w1.tokensIn - w0.tokensIn, tokensOut: w1.tokensOut - w0.tokensOut, costUsd: w1.costUsd - w0.costUsd, latencyMs: o.work ? Date.now() - started : 0 };
    const spent = scheduled ? addWork(scheduled.work, own) : own;
    const link = scheduled ? { scheduledAt: scheduled.scheduledAt } : {};
    const changes = store.takeChanges();
    const after = store.state();
    const changed = changes.created.length > 0 || changes.compacted.length > 0 || after !== before;
    if (!changed) {
      // Deferred work that found the history moved lands nowhere: recorded, so the timeline shows it was abandoned.
      if (outcome.stats.abandoned === true) firings.push({ call: k, position: end, kind, reason: String(outcome.stats.reason ?? 'abandoned'), contextBefore, contextAfter: contextBefore, measured, created: [], compacted: [], maxDepth: 0, stats: outcome.stats, work: spent, ...link, state: after });
      return outcome.deferred ? { changedAt: Infinity, outcome, spent } : null;
    }
    this.adopt(after);
    this.recompute(end, prefix);
    let maxDepth = 0;
    for (const id of changes.created) maxDepth = Math.max(maxDepth, store.get(id)?.depth ?? 0);
    firings.push({
      call: k,
      position: end,
      kind,
      reason: String(outcome.stats.reason ?? ''),
      contextBefore,
      // What the model receives at this call now (the same rule as the call's column).
      contextAfter: this.contextAt(k, end),
      measured,
      created: changes.created,
      compacted: changes.compacted,
      maxDepth,
      stats: outcome.stats,
      work: spent,
      ...link,
      state: after,
    });
    return { changedAt: this.firstChanged(changes.created, changes.compacted, beforeRanges, beforeMask), outcome, spent };
  }

  /**
   * The turns before the call at `end`, with their span index as an O(1) view on the session's.
   * Calls come in position order: no copy per firing (prefix-arrays.ts).
   */
  private prefixAt(end: number): TurnMeta[] {
    let prefix = this.prefix;
    if (this.prefixEnd !== end || prefix === null) {
      prefix = this.prefix = this.prefixes.at(end);
      prefixIndex(this.ix, prefix);
      this.prefixEnd = end;
    }
    return prefix;
  }

  /** Fills `measure` for the call at `end` and asks the strategy whether it may fire there. */
  private mayFireAt(k: number, end: number): boolean {
    const measure = this.measure;
    const convCount = this.convCountPrefix;
    measure.contextTokens = this.measuredAt(k, end);
    measure.viewTokens = this.viewAt(end);
    measure.end = end;
    measure.viewTurns = this.viewTurns + convCount[end] - convCount[this.lastEnd];
    measure.newToolCycles = this.resultsPrefix[end] - this.cyclesAtFire;
    return this.def.live.mayFire(measure, this.o.prepared.params, this.store.state());
  }

  /** A model-free strategy's pass as a synchronous step (same state, reason and stats); where the view changed from, or Infinity. */
  private stepAt(k: number, end: number, apply: NonNullable<LiveLoop['step']>): number {
    const store = this.store;
    const before = store.state();
    const contextBefore = this.contextAt(k, end);
    this.stepEnd = end;
    const st = apply(spanIndexAt(this.ix, end), this.o.prepared.params, before, this.stepTurns);
    this.cyclesAtFire = this.resultsPrefix[end];
    if (!st) return Infinity;
    store.replaceState(st.state);
    const beforeRanges = this.ranges;
    const beforeMask = this.maskBoundary;
    this.adopt(st.state);
    this.view = st.visibleTokens;
    this.viewTurns = this.viewTurnsOf(end, this.ranges);
    this.lastEnd = end;
    this.stepLog!.fired(k, end, contextBefore);
    return this.stateChangedFrom(beforeRanges, beforeMask);
  }

  /** Writes call k's columns; `changedAt` < Infinity iff the view changed before it (a firing or commit landed). */
  private record(k: number, end: number, changedAt: number, contextTokens: number): void {
    const out = this.out;
    const fired = changedAt < Infinity;
    out.viewTokens[k] = this.viewAt(end);
    out.contextTokens[k] = contextTokens;
    const prev = this.prevContext;
    out.sharedPrefixTokens[k] = k === 0 ? 0 : Math.min(contextTokens, fired ? Math.min(prev, contextOf(this.model, this.viewBefore(changedAt))) : prev);
    if (fired) out.fired[k] = 1;
    // The cache entry is this prompt (a breakpoint at its end); the answer is new input next time.
    this.prevContext = contextTokens;
    const onProgress = this.o.onProgress;
    if (onProgress) onProgress(k + 1, this.n, this.firings.length + (this.stepLog ? this.stepLog.count : 0));
  }

  /**
   * The calls from `from` on that need no await, in one small synchronous loop V8 keeps
   * optimized (an async function resumed per call is not): nothing fires, or a model-free
   * step does. Returns the first call that needs the full path (a pass, a commit, the
   * engine's beforeCall), or n. Cancellation is checked every 64 calls here.
   */
  private quietRun(from: number): number {
    const o = this.o;
    if (o.beforeCall || o.fastSteps === false) return from;
    const n = this.n;
    const positions = this.positions;
    const step = this.step;
    const signal = o.signal;
    for (let k = from; k < n; k++) {
      if ((k & 63) === 0 && signal?.aborted) throw cancelled();
      const pending = this.pending;
      if (pending && k >= pending.due) return k;
      const end = positions[k];
      // Nothing fired: the context mayFireAt measured is the call's (no state changed since).
      if (!this.mayFireAt(k, end)) this.record(k, end, Infinity, this.contextAt(k, end));
      else if (step) {
        const changedAt = this.stepAt(k, end, step);
        this.record(k, end, changedAt, this.contextAt(k, end));
      } else return k;
    }
    return n;
  }

  async run(): Promise<LiveResult> {
    const { o, n, positions, store, step, stepLog } = this;
    try {
      for (let k = this.quietRun(0); k < n; k = this.quietRun(k + 1)) {
        if (o.signal?.aborted) throw cancelled();
        if (o.beforeCall) {
          const wait = o.beforeCall(k);
          if (wait) await wait;
        }
        const end = positions[k];
        let changedAt = Infinity;

        const pending = this.pending;
        let landed = false;
        if (pending && k >= pending.due) {
          this.pending = null;
          landed = true;
          const r = await this.runAt(k, end, this.prefixAt(end), this.contextAt(k, end), 'commit', (ctx) => pending.commit(ctx), pending);
          if (r) changedAt = Math.min(changedAt, r.changedAt);
        }
        // The follow-up mark: a crossing while work was pending runs the pass once more where that work landed, whatever the line.
        const followUp = landed && this.followUp;
        if (followUp) this.followUp = false;

        if (followUp || this.mayFireAt(k, end)) {
          if (step) changedAt = Math.min(changedAt, this.stepAt(k, end, step));
          else {
            const r = await this.runAt(k, end, this.prefixAt(end), this.contextAt(k, end), 'fire', this.fire);
            this.cyclesAtFire = this.resultsPrefix[end];
            if (r) {
              if (r.outcome.deferred) {
                const deferred = r.outcome.deferred;
                // A firing that wrote nothing now (only scheduled) spent its summarizing here: the commit carries it.
                const paid = r.changedAt === Infinity ? r.spent : NO_WORK;
                this.pending = { due: k + this.delay, commit: (at) => deferred.commit(at), scheduledAt: k, work: paid };
              }
              changedAt = Math.min(changedAt, r.changedAt);
            }
          }
        }
        this.record(k, end, changedAt, this.contextAt(k, end));
      }
    } finally {
      // The grown prefix dies with the replay (spans.ts keeps the last one for O(1) views).
      if (this.prefix !== null) releasePrefix(this.prefix);
      this.prefixes.release();
    }
    const state = store.state();
    const firings = this.firings;
    if (!stepLog || stepLog.count === 0) return { calls: this.out, firings, state };
    // A model-free run fires only by steps: its firings are built when first read.
    return withLazy<LiveResult, 'firings'>({ calls: this.out }, 'firings', () => stepLog.firings(this.out), { state });
  }
}

const cancelled = () => Object.assign(new Error('cancelled'), { name: 'AbortError' });

