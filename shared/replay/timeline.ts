/**
 * A replay's timeline (the contract's ReplayTimeline), built the same way for the
 * engine's real replay (electron/engine/replay.ts) and the window's projected one
 * (renderer/plan/use-timeline.ts):
 * - `replayInputs`: the model calls with what the source recorded (time, output), the
 *   context model `a + b × view` (the session's overhead fit, else a constant), and the
 *   model and cache lifetime the session was priced at;
 * - `buildTimeline`: every call priced with prompt caching (shared/cost/caching.ts) beside
 *   the two baselines — no compaction, and the source tool's own record (its reported
 *   context and cost, its compactions with the app's estimate of the context before each).
 */
import type { ExternalCompactionInfo, ReplayEventInfo, ReplayTimeline, ReplayTotals, RunStatus, SourceCompactionEvent, SummaryLedger } from '../contract.js';
import type { TurnMeta } from '../model/turn.js';
import type { PreparedStrategy } from '../strategies/index.js';
import { priceRecordedUsage, simulateCallColumns, type CostTotals } from '../cost/caching.js';
import { priceOf, type UserPrices } from '../cost/prices.js';
import { DEFAULT_OVERHEAD_TOKENS, type OverheadFit } from '../usage/overhead.js';
import { reportedContext, type ModelCallUsage } from '../usage/types.js';
import { callsOf, contextOf, type ContextModel, type LiveCall, type LiveFiring, type LiveResult } from './live.js';

/** The context window the "no compaction" baseline overflows, when the variant names none. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** Priced as this model when the session reports none. */
export const DEFAULT_PRICING_MODEL = 'claude-sonnet-4-5';

export type SourceCompaction = Pick<ExternalCompactionInfo, 'trigger' | 'preTokens' | 'firstPosition' | 'lastPosition' | 'boundaryPosition'>;

/** What a session brings to a replay. */
export interface ReplaySource {
  sessionId: number;
  metas: readonly TurnMeta[];
  usage: readonly ModelCallUsage[];
  /** The session's overhead fit (shared/usage/overhead.ts `fitSessionOverhead`), if it has one. */
  fit: OverheadFit | null;
  /** The source tool's own compactions. */
  external: readonly SourceCompaction[];
  /** Constant overhead when there is no fit. */
  overheadTokens?: number;
}

export interface ReplayInputs {
  calls: LiveCall[];
  model: ContextModel & { source: 'fit' | 'parameter' };
  pricing: { model: string; ttl: '5m' | '1h' };
  usageByPosition: Map<number, ModelCallUsage>;
}

const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) || null : null);
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** A column as the contract's plain array (a loop: Array.from walks a typed array through its iterator, ~10× slower). */
function arrayOf(xs: ArrayLike<number>): number[];
function arrayOf<T>(xs: ArrayLike<number>, f: (x: number) => T): T[];
function arrayOf<T>(xs: ArrayLike<number>, f?: (x: number) => T): Array<T | number> {
  const n = xs.length;
  const out = new Array<T | number>(n);
  if (f) for (let k = 0; k < n; k++) out[k] = f(xs[k]);
  else for (let k = 0; k < n; k++) out[k] = xs[k];
  return out;
}

/** The model the session's calls were priced as, and the cache lifetime its writes used. */
function pricingOf(usage: readonly ModelCallUsage[]): ReplayInputs['pricing'] {
  const counts = new Map<string, number>();
  let w1h = 0;
  let w5m = 0;
  for (const u of usage) {
    if (u.model && !u.model.startsWith('<')) counts.set(u.model, (counts.get(u.model) ?? 0) + 1);
    w1h += u.cacheWrite1hTokens ?? 0;
    w5m += u.cacheWrite5mTokens ?? 0;
  }
  const model = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? DEFAULT_PRICING_MODEL;
  return { model, ttl: w1h > w5m ? '1h' : '5m' };
}

export function replayInputs(src: ReplaySource): ReplayInputs {
  const model: ReplayInputs['model'] = src.fit ? { a: src.fit.a, b: src.fit.b, source: 'fit' } : { a: src.overheadTokens ?? DEFAULT_OVERHEAD_TOKENS, b: 1, source: 'parameter' };
  // The calls are a function of the (immutable) turns, usage and source compactions: built once
  // for them, not once per projection (the window projects on every settled slider move, and
  // the live loop keeps its call columns per call list).
  const known = inputsOf.get(src.metas);
  if (known && known.usage === src.usage && known.external === src.external) return { ...known.inputs, model };
  const usageByPosition = new Map(src.usage.map((u) => [u.position, u]));
  // Until the source compacted, what it reported is what the uncompacted transcript cost to send.
  const sentUncompacted = src.external.reduce((p, x) => Math.min(p, x.boundaryPosition), Infinity);
  const calls = callsOf(src.metas, (p) => {
    const u = usageByPosition.get(p);
    return { timestampMs: ms(u?.timestamp), outputTokens: u?.placeholder ? null : (u?.outputTokens ?? null), reportedContext: u && p < sentUncompacted ? reportedContext(u) : null };
  });
  const inputs = { calls, pricing: pricingOf(src.usage), usageByPosition };
  inputsOf.set(src.metas, { usage: src.usage, external: src.external, inputs });
  return { ...inputs, model };
}

const inputsOf = new WeakMap<readonly TurnMeta[], { usage: ReplaySource['usage']; external: ReplaySource['external']; inputs: Omit<ReplayInputs, 'model'> }>();

/**
 * A firing as the contract's event, each field read from the firing when asked. The window's
 * projection of a window or masking variant has ~50,000 firings, and a model-free step's
 * reason is derived by running its steps again (live.ts StepLog): the panel reads the numbers
 * of every event but the reason of the few it lists. `plainEvent` (and JSON) give the plain object.
 */
class FiringEvent implements ReplayEventInfo {
  readonly call: number;
  readonly turn: number;
  readonly contextBefore: number;
  readonly contextAfter: number;
  ledger?: SummaryLedger | null;

  constructor(private readonly f: LiveFiring) {
    this.call = f.call;
    this.turn = f.position;
    this.contextBefore = f.contextBefore;
    this.contextAfter = f.contextAfter;
  }

  get kind(): ReplayEventInfo['kind'] {
    return this.f.kind;
  }
  get reason(): string {
    return this.f.reason;
  }
  /**
   * Spans of turns compacted: the pass's own count when it gives one (`spansCompacted`: dag's
   * leaves; a condensation is no new span), else one per summary made; a firing that made no
   * summary dropped or masked one range (window, forgetting, masking), or was abandoned (0).
   */
  get spans(): number {
    const f = this.f;
    // A model-free step's firing (live.ts StepFiring) derives its stats when read, by running its
    // steps again: not read for a number known already.
    if (!Object.prototype.hasOwnProperty.call(f, 'stats')) return 1;
    if (f.created.length === 0) return f.stats.abandoned === true ? 0 : 1;
    const n = f.stats.spansCompacted;
    return typeof n === 'number' ? n : f.created.length;
  }
  get summaryIds(): number[] {
    return this.f.created;
  }
  get maxDepth(): number {
    return this.f.maxDepth;
  }
  get summarizerCalls(): number {
    return this.f.work.summarizerCalls;
  }
  get tokensIn(): number {
    return this.f.work.tokensIn;
  }
  get tokensOut(): number {
    return this.f.work.tokensOut;
  }
  get costUsd(): number {
    return round6(this.f.work.costUsd);
  }
  get latencyMs(): number {
    return this.f.work.latencyMs;
  }
  toJSON(): ReplayEventInfo {
    return plainEvent(this);
  }
}

/** An event as a plain object (what is stored, spread and mutated). */
function plainEvent(e: ReplayEventInfo): ReplayEventInfo {
  return { call: e.call, turn: e.turn, kind: e.kind, reason: e.reason, contextBefore: e.contextBefore, contextAfter: e.contextAfter, spans: e.spans, summaryIds: e.summaryIds, maxDepth: e.maxDepth, summarizerCalls: e.summarizerCalls, tokensIn: e.tokensIn, tokensOut: e.tokensOut, costUsd: e.costUsd, latencyMs: e.latencyMs, ...(e.ledger !== undefined ? { ledger: e.ledger } : {}) };
}

/**
 * A live result's firings as the contract's events (summary ids as the store that made them
 * numbered them): plain objects (the engine stores and edits them), or with `lazy`, events
 * that read each field from their firing when asked (the window's projection).
 */
export function firingEvents(firings: readonly LiveFiring[], opts: { lazy?: boolean } = {}): ReplayEventInfo[] {
  return opts.lazy ? firings.map((f) => new FiringEvent(f)) : firings.map((f) => plainEvent(new FiringEvent(f)));
}

function totalsOf(t: CostTotals, context: ReadonlyArray<number | null>, extra: { summarizerCostUsd: number; firings: number; maxDepth: number }): ReplayTotals {
  return {
    modelCalls: t.calls,
    inputTokens: t.promptTokens,
    cacheReadTokens: t.cacheReadTokens,
    cacheWriteTokens: t.cacheWriteTokens,
    outputTokens: t.outputTokens,
    costUsd: round6(t.costUsd + extra.summarizerCostUsd),
    summarizerCostUsd: round6(extra.summarizerCostUsd),
    peakContext: context.reduce<number>((a, b) => (b !== null && b > a ? b : a), 0),
    firings: extra.firings,
    maxDepth: extra.maxDepth,
  };
}

export interface BuildTimelineInput {
  source: ReplaySource;
  inputs: ReplayInputs;
  prepared: PreparedStrategy;
  live: LiveResult;
  events: ReplayEventInfo[];
  runId: number;
  variantId: number;
  status: RunStatus;
  /** The user's prices (settings): they override the table and price unlisted models. */
  userPrices?: UserPrices;
}

/** The timeline document of a finished live replay: costs per call and the two baselines. */
export function buildTimeline(o: BuildTimelineInput): ReplayTimeline {
  const { source, inputs, prepared, live } = o;
  const { model, pricing, calls, usageByPosition } = inputs;
  // Columns in, columns out: a projection redraws this for ~50,000 calls per settled slider move.
  const simOptions = { model: pricing.model, ttl: pricing.ttl, userPrices: o.userPrices };
  const lc = live.calls;
  const n = lc.count;
  const costs = simulateCallColumns({ count: n, promptTokens: lc.contextTokens, sharedPrefixTokens: lc.sharedPrefixTokens, outputTokens: lc.outputTokens, timestampMs: lc.timestampMs }, simOptions);
  const context = arrayOf(lc.contextTokens);
  const timestampMs = arrayOf(lc.timestampMs, (t) => (Number.isNaN(t) ? null : t));
  let summarizerCostUsd = 0;
  let maxDepth = 0;
  for (const e of o.events) {
    summarizerCostUsd += e.costUsd;
    maxDepth = Math.max(maxDepth, e.maxDepth);
  }

  // Baseline 1: no compaction — the whole transcript at every call (as reported while the source
  // had not compacted, else the context model), each prompt extending the last.
  const transcript = arrayOf(lc.transcriptTokens);
  const noneContext = new Array<number>(n);
  const noneShared = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    noneContext[k] = calls[k].reportedContext ?? contextOf(model, transcript[k]);
    if (k > 0) noneShared[k] = noneContext[k - 1];
  }
  const noneCosts = simulateCallColumns({ count: n, promptTokens: noneContext, sharedPrefixTokens: noneShared, outputTokens: lc.outputTokens, timestampMs: lc.timestampMs }, simOptions);
  const window = Number(prepared.params.tokenBudget ?? prepared.params.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  const overflow = noneContext.findIndex((c) => c > window);

  // Baseline 2: what the source tool did — its recorded context and cost where it reported them.
  const sourceContext = new Array<number | null>(n);
  const recorded: CostTotals = { calls: n, promptTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, uncachedInputTokens: 0, outputTokens: 0, costUsd: 0 };
  for (let k = 0; k < n; k++) {
    const u = usageByPosition.get(calls[k].position);
    sourceContext[k] = u ? reportedContext(u) : null;
    if (!u || u.placeholder) {
      recorded.outputTokens += calls[k].outputTokens;
      continue;
    }
    recorded.promptTokens += reportedContext(u) ?? 0;
    recorded.cacheReadTokens += u.cacheReadTokens ?? 0;
    recorded.cacheWriteTokens += (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0);
    recorded.uncachedInputTokens += u.inputTokens ?? 0;
    recorded.outputTokens += u.outputTokens ?? 0;
    recorded.costUsd += priceRecordedUsage(u, o.userPrices).costUsd;
  }
  const sourceEvents: SourceCompactionEvent[] = source.external.map((x) => {
    let call = calls.findIndex((c) => c.position >= x.boundaryPosition);
    if (call < 0) call = calls.length;
    const before = call - 1;
    return { call, turn: x.boundaryPosition, reason: `${x.trigger} compaction by the source tool (turns ${x.firstPosition}-${x.lastPosition})`, contextBefore: before >= 0 ? noneContext[before] : 0, preTokens: x.preTokens };
  });

  const def = prepared.definition;
  return {
    runId: o.runId,
    variantId: o.variantId,
    sessionId: source.sessionId,
    strategy: prepared.strategy,
    params: prepared.params,
    status: o.status,
    contextModel: { a: model.a, b: model.b, source: model.source },
    pricing: { model: pricing.model, known: priceOf(pricing.model, o.userPrices).known, ttl: pricing.ttl },
    lines: def.live.lines(prepared.params),
    note: def.live.note ?? null,
    calls: {
      position: arrayOf(lc.position),
      timestampMs,
      transcript,
      context,
      cacheRead: arrayOf(costs.cacheReadTokens),
      cacheWrite: arrayOf(costs.cacheWriteTokens),
      uncached: arrayOf(costs.uncachedInputTokens),
      output: arrayOf(lc.outputTokens),
      costUsd: arrayOf(costs.costUsd, round6),
      fired: arrayOf(lc.fired, (f) => f === 1),
    },
    events: o.events,
    totals: totalsOf(costs.totals, context, { summarizerCostUsd, firings: o.events.length, maxDepth }),
    baselines: {
      none: { context: noneContext, totals: totalsOf(noneCosts.totals, noneContext, { summarizerCostUsd: 0, firings: 0, maxDepth: 0 }), contextWindow: window, overflowAtCall: overflow < 0 ? null : overflow },
      source: { context: sourceContext, events: sourceEvents, totals: totalsOf(recorded, sourceContext, { summarizerCostUsd: 0, firings: sourceEvents.length, maxDepth: 0 }) },
    },
  };
}
