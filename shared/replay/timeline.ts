/**
 * A replay's timeline (the contract's ReplayTimeline), built the same way for the
 * engine's real replay (electron/engine/replay.ts) and the window's projected one
 * (renderer/plan/use-timeline.ts):
 * - `replayInputs`: the model calls with what the source recorded (time, output), the
 *   context model `a + b × view` (the session's overhead fit, else a constant), each call's
 *   model and the cache lifetime the session's writes used;
 * - `buildTimeline`: every call priced with prompt caching (shared/cost/caching.ts) at the
 *   model the source used for that call — a call the source never made as such (the history
 *   changed by a compaction) at the model of the source's call at that position; summarizer
 *   calls at the summarizer's model — beside the two baselines: no compaction, and the source
 *   tool's own record (shared/replay/source-baseline.ts). Every series is checked against the
 *   context window of each call's model (shared/cost/windows.ts; never a variant's
 *   `tokenBudget`), and says where it exceeds it and which calls no price covers
 *   (shared/cost/figures.ts).
 */
import type { ExternalCompactionInfo, ModelCostLine, ReplayEventInfo, ReplayTimeline, RunStatus, SourceChildUsage, SourceCompactionEvent, SummaryLedger } from '../contract.js';
import type { TurnMeta } from '../model/turn.js';
import type { PreparedStrategy } from '../strategies/index.js';
import { recordedCallColumns, simulateCallColumns, useRecordedCalls } from '../cost/caching.js';
import { infeasibilityOf, mergeCostLines } from '../cost/figures.js';
import { MODEL_FREE, priceOf, type UserPrices } from '../cost/prices.js';
import { contextWindowOf, type UserContextWindows } from '../cost/windows.js';
import { DEFAULT_OVERHEAD_TOKENS, type OverheadFit } from '../usage/overhead.js';
import { reportedContext, type ModelCallUsage } from '../usage/types.js';
import { callsOf, contextOf, type ContextModel, type LiveCall, type LiveFiring, type LiveResult } from './live.js';
import { sourceBaseline } from './source-baseline.js';
import { costLines, round6, totalsOf } from './totals.js';

export { DEFAULT_CONTEXT_WINDOW } from '../cost/windows.js';
/** Priced as this model when the session reports none. */
export const DEFAULT_PRICING_MODEL = 'claude-sonnet-4-5';

export type SourceCompaction = Pick<ExternalCompactionInfo, 'trigger' | 'preTokens' | 'firstPosition' | 'lastPosition' | 'boundaryPosition'> & Partial<Pick<ExternalCompactionInfo, 'summaryTokenCount'>>;

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
  /** The session's child sessions' recorded calls (the source tool's compaction calls, its subagents). */
  children?: readonly SourceChildUsage[];
}

export interface ReplayInputs {
  calls: LiveCall[];
  model: ContextModel & { source: 'fit' | 'parameter' };
  /** `model`: the most used (the summary line); `calls`: each call's own (index into `names`). */
  pricing: { model: string; ttl: '5m' | '1h'; calls: { names: string[]; index: Int32Array } };
  usageByPosition: Map<number, ModelCallUsage>;
}

const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) || null : null);
/** A model name a call can be priced at (Claude Code writes `<synthetic>` for messages no model made). */
const realModel = (m: string | null | undefined): m is string => typeof m === 'string' && m.length > 0 && !m.startsWith('<');

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

/**
 * Each call's model — the one the source used for the call at that position; where it recorded
 * none, the model of its nearest call before (else after) — the most used one, and the cache
 * lifetime the session's writes used.
 */
function pricingOf(calls: readonly LiveCall[], usageByPosition: ReadonlyMap<number, ModelCallUsage>): ReplayInputs['pricing'] {
  const counts = new Map<string, number>();
  let w1h = 0;
  let w5m = 0;
  for (const u of usageByPosition.values()) {
    if (realModel(u.model)) counts.set(u.model, (counts.get(u.model) ?? 0) + 1);
    w1h += u.cacheWrite1hTokens ?? 0;
    w5m += u.cacheWrite5mTokens ?? 0;
  }
  const model = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? DEFAULT_PRICING_MODEL;
  const names: string[] = [];
  const index = new Int32Array(calls.length).fill(-1);
  const idOf = (name: string) => {
    const i = names.indexOf(name);
    return i >= 0 ? i : names.push(name) - 1;
  };
  let last = -1;
  for (let k = 0; k < calls.length; k++) {
    const m = usageByPosition.get(calls[k].position)?.model;
    if (realModel(m)) last = idOf(m);
    index[k] = last;
  }
  // Calls before the first recorded model take the first one; a session with none, the default.
  const first = index.find((i) => i >= 0) ?? idOf(model);
  for (let k = 0; k < calls.length && index[k] < 0; k++) index[k] = first;
  if (names.length === 0) names.push(model);
  return { model, ttl: w1h > w5m ? '1h' : '5m', calls: { names, index } };
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
  const inputs = { calls, pricing: pricingOf(calls, usageByPosition), usageByPosition };
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
  get scheduledAt(): number | undefined {
    return this.f.scheduledAt;
  }
  toJSON(): ReplayEventInfo {
    return plainEvent(this);
  }
}

/** An event as a plain object (what is stored, spread and mutated). */
function plainEvent(e: ReplayEventInfo): ReplayEventInfo {
  return { call: e.call, turn: e.turn, kind: e.kind, reason: e.reason, contextBefore: e.contextBefore, contextAfter: e.contextAfter, spans: e.spans, summaryIds: e.summaryIds, maxDepth: e.maxDepth, summarizerCalls: e.summarizerCalls, tokensIn: e.tokensIn, tokensOut: e.tokensOut, costUsd: e.costUsd, latencyMs: e.latencyMs, ...(e.scheduledAt !== undefined ? { scheduledAt: e.scheduledAt } : {}), ...(e.ledger !== undefined ? { ledger: e.ledger } : {}) };
}

/**
 * A live result's firings as the contract's events (summary ids as the store that made them
 * numbered them): plain objects (the engine stores and edits them), or with `lazy`, events
 * that read each field from their firing when asked (the window's projection).
 */
export function firingEvents(firings: readonly LiveFiring[], opts: { lazy?: boolean } = {}): ReplayEventInfo[] {
  return opts.lazy ? firings.map((f) => new FiringEvent(f)) : firings.map((f) => plainEvent(new FiringEvent(f)));
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
  /** The user's context windows by model (settings `contextWindows`). */
  contextWindows?: UserContextWindows;
  /** This session's context window, whatever the model (a per-run override). */
  contextWindow?: number | null;
  /** The model the summarizer's calls are priced at (its cost is in each firing's `costUsd`). */
  summarizerModel?: string | null;
  /** Count the session's subagents in the source's recorded total (default true). */
  includeSubagents?: boolean;
}

/** The timeline document of a finished live replay: costs per call and the two baselines. */
export function buildTimeline(o: BuildTimelineInput): ReplayTimeline {
  const { source, inputs, prepared, live } = o;
  const { model, pricing, calls, usageByPosition } = inputs;
  const callModels = pricing.calls;
  // Columns in, columns out: a projection redraws this for ~50,000 calls per settled slider move.
  const simOptions = { model: pricing.model, ttl: pricing.ttl, userPrices: o.userPrices, callModels };
  const lc = live.calls;
  const n = lc.count;
  const modelName = (k: number) => callModels.names[callModels.index[k]];
  // A call the source made with exactly this prompt (the uncompacted transcript, before the source
  // first compacted, with trusted usage) costs what the source was billed for it, in every series
  // until that series first changes the prompt: so a variant that never fires costs exactly what
  // no compaction costs, and both at least what the source's own calls cost.
  const recorded = recordedCallColumns(calls.map((c) => (c.reportedContext != null ? usageByPosition.get(c.position) : undefined)), o.userPrices);
  const costs = simulateCallColumns({ count: n, promptTokens: lc.contextTokens, sharedPrefixTokens: lc.sharedPrefixTokens, outputTokens: lc.outputTokens, timestampMs: lc.timestampMs }, simOptions);
  const firstChange = lc.fired.indexOf(1);
  useRecordedCalls(costs, recorded, (k) => (firstChange < 0 || k < firstChange ? k : -1), modelName);
  const context = arrayOf(lc.contextTokens);
  const timestampMs = arrayOf(lc.timestampMs, (t) => (Number.isNaN(t) ? null : t));
  let summarizerCostUsd = 0;
  let summarizerCalls = 0;
  let maxDepth = 0;
  for (const e of o.events) {
    summarizerCostUsd += e.costUsd;
    summarizerCalls += e.summarizerCalls;
    maxDepth = Math.max(maxDepth, e.maxDepth);
  }
  // The summarizer's calls under its own model (a model-free summarizer has no line).
  const summarizerModel = o.summarizerModel ?? null;
  const summarizerLine: ModelCostLine[] = summarizerModel !== null && summarizerCalls > 0 && !MODEL_FREE.has(summarizerModel) ? [{ model: summarizerModel, calls: summarizerCalls, costUsd: summarizerCostUsd, known: priceOf(summarizerModel, o.userPrices).known }] : [];

  // The window is the model's: per call, its model's (or this session's override).
  const windows = callModels.names.map((m) => {
    const w = contextWindowOf(m, { override: o.contextWindow, user: o.contextWindows });
    return { model: m, tokens: w.tokens, from: w.from };
  });
  const modelOf = (k: number) => callModels.index[k];
  const windowOf = (m: string) => contextWindowOf(m, { override: o.contextWindow, user: o.contextWindows }).tokens;

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
  useRecordedCalls(noneCosts, recorded, (k) => k, modelName);
  const noneInfeasible = infeasibilityOf(noneContext, modelOf, windows);
  // The headline window: the most used model's (the Timeline draws it as a line).
  const window = windowOf(pricing.model);

  // Baseline 2: what the source tool did — its recorded calls and its compactions, simulated beside.
  const sourceEvents: SourceCompactionEvent[] = source.external.map((x) => {
    let call = calls.findIndex((c) => c.position >= x.boundaryPosition);
    if (call < 0) call = calls.length;
    const before = call - 1;
    return { call, turn: x.boundaryPosition, reason: `${x.trigger} compaction by the source tool (turns ${x.firstPosition}-${x.lastPosition})`, contextBefore: before >= 0 ? noneContext[before] : 0, preTokens: x.preTokens };
  });
  const sourceTimeline = sourceBaseline(
    { metas: source.metas, calls, usageByPosition, external: source.external, children: source.children ?? [], includeSubagents: o.includeSubagents !== false, model, lc, callModels, windows, windowOf, recorded, ttl: pricing.ttl, userPrices: o.userPrices, firings: sourceEvents.length },
    source.sessionId,
    sourceEvents,
  );

  const def = prepared.definition;
  return {
    runId: o.runId,
    variantId: o.variantId,
    sessionId: source.sessionId,
    strategy: prepared.strategy,
    params: prepared.params,
    status: o.status,
    contextModel: { a: model.a, b: model.b, source: model.source },
    pricing: { model: pricing.model, known: callModels.names.every((m) => priceOf(m, o.userPrices).known), ttl: pricing.ttl, models: callModels.names },
    callModel: arrayOf(callModels.index),
    windows,
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
    totals: totalsOf(costs.totals, context, { summarizerCostUsd, firings: o.events.length, maxDepth, byModel: mergeCostLines(costLines(costs.byModel), summarizerLine), infeasible: infeasibilityOf(context, modelOf, windows) }),
    baselines: {
      none: { context: noneContext, totals: totalsOf(noneCosts.totals, noneContext, { summarizerCostUsd: 0, firings: 0, maxDepth: 0, byModel: costLines(noneCosts.byModel), infeasible: noneInfeasible }), contextWindow: window, overflowAtCall: noneInfeasible?.atCall ?? null },
      source: sourceTimeline,
    },
  };
}
