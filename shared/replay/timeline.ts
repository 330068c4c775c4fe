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
import type { ExternalCompactionInfo, ReplayEventInfo, ReplayTimeline, ReplayTotals, RunStatus, SourceCompactionEvent } from '../contract.js';
import type { TurnMeta } from '../model/turn.js';
import type { PreparedStrategy } from '../strategies/index.js';
import { priceRecordedUsage, simulateCalls, totals as costTotals, type CallCost } from '../cost/caching.js';
import { priceOf, type UserPrices } from '../cost/prices.js';
import { DEFAULT_OVERHEAD_TOKENS, type OverheadFit } from '../usage/overhead.js';
import { reportedContext, type ModelCallUsage } from '../usage/types.js';
import { callsOf, contextOf, type ContextModel, type LiveCall, type LiveCallRecord, type LiveFiring, type LiveResult } from './live.js';

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
  const usageByPosition = new Map(src.usage.map((u) => [u.position, u]));
  // Until the source compacted, what it reported is what the uncompacted transcript cost to send.
  const sentUncompacted = src.external.reduce((p, x) => Math.min(p, x.boundaryPosition), Infinity);
  const calls = callsOf(src.metas, (p) => {
    const u = usageByPosition.get(p);
    return { timestampMs: ms(u?.timestamp), outputTokens: u?.placeholder ? null : (u?.outputTokens ?? null), reportedContext: u && p < sentUncompacted ? reportedContext(u) : null };
  });
  const model: ReplayInputs['model'] = src.fit ? { a: src.fit.a, b: src.fit.b, source: 'fit' } : { a: src.overheadTokens ?? DEFAULT_OVERHEAD_TOKENS, b: 1, source: 'parameter' };
  return { calls, model, pricing: pricingOf(src.usage), usageByPosition };
}

/** A live result's firings as the contract's events (summary ids as the store that made them numbered them). */
export function firingEvents(firings: readonly LiveFiring[]): ReplayEventInfo[] {
  return firings.map((f) => ({
    call: f.call,
    turn: f.position,
    kind: f.kind,
    reason: f.reason,
    contextBefore: f.contextBefore,
    contextAfter: f.contextAfter,
    spans: f.created.length,
    summaryIds: f.created,
    maxDepth: f.maxDepth,
    summarizerCalls: f.work.summarizerCalls,
    tokensIn: f.work.tokensIn,
    tokensOut: f.work.tokensOut,
    costUsd: round6(f.work.costUsd),
    latencyMs: f.work.latencyMs,
  }));
}

function totalsOf(costs: readonly CallCost[], context: ReadonlyArray<number | null>, extra: { summarizerCostUsd: number; firings: number; maxDepth: number }): ReplayTotals {
  const t = costTotals(costs);
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
  const sim = (recs: ReadonlyArray<Pick<LiveCallRecord, 'contextTokens' | 'sharedPrefixTokens' | 'outputTokens' | 'timestampMs'>>) =>
    simulateCalls(
      recs.map((r) => ({ promptTokens: r.contextTokens, sharedPrefixTokens: r.sharedPrefixTokens, outputTokens: r.outputTokens, timestampMs: r.timestampMs })),
      { model: pricing.model, ttl: pricing.ttl, userPrices: o.userPrices },
    );
  const lc = live.calls;
  const n = lc.count;
  const timestampMs = Array.from(lc.timestampMs, (t) => (Number.isNaN(t) ? null : t));
  const context = Array.from(lc.contextTokens);
  const costs = sim(Array.from({ length: n }, (_, k) => ({ contextTokens: context[k], sharedPrefixTokens: lc.sharedPrefixTokens[k], outputTokens: lc.outputTokens[k], timestampMs: timestampMs[k] })));
  const summarizerCostUsd = o.events.reduce((n, e) => n + e.costUsd, 0);
  const maxDepth = o.events.reduce((d, e) => Math.max(d, e.maxDepth), 0);

  // Baseline 1: no compaction — the whole transcript at every call (as reported while the source
  // had not compacted, else the context model), each prompt extending the last.
  const transcript = Array.from(lc.transcriptTokens);
  const noneContext = transcript.map((t, k) => calls[k].reportedContext ?? contextOf(model, t));
  const noneCosts = sim(calls.map((c, k) => ({ contextTokens: noneContext[k], sharedPrefixTokens: k === 0 ? 0 : noneContext[k - 1], outputTokens: c.outputTokens, timestampMs: c.timestampMs })));
  const window = Number(prepared.params.tokenBudget ?? prepared.params.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  const overflow = noneContext.findIndex((c) => c > window);

  // Baseline 2: what the source tool did — its recorded context and cost where it reported them.
  const sourceContext = calls.map((c) => {
    const u = usageByPosition.get(c.position);
    return u ? reportedContext(u) : null;
  });
  const sourceEvents: SourceCompactionEvent[] = source.external.map((x) => {
    let call = calls.findIndex((c) => c.position >= x.boundaryPosition);
    if (call < 0) call = calls.length;
    const before = call - 1;
    return { call, turn: x.boundaryPosition, reason: `${x.trigger} compaction by the source tool (turns ${x.firstPosition}-${x.lastPosition})`, contextBefore: before >= 0 ? noneContext[before] : 0, preTokens: x.preTokens };
  });
  const recorded: CallCost[] = calls.map((c) => {
    const u = usageByPosition.get(c.position);
    if (!u || u.placeholder) return { promptTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, uncachedInputTokens: 0, outputTokens: c.outputTokens, costUsd: 0 };
    const write = (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0);
    return { promptTokens: reportedContext(u) ?? 0, cacheReadTokens: u.cacheReadTokens ?? 0, cacheWriteTokens: write, uncachedInputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0, costUsd: priceRecordedUsage(u, o.userPrices).costUsd };
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
      position: Array.from(lc.position),
      timestampMs,
      transcript,
      context,
      cacheRead: costs.map((c) => c.cacheReadTokens),
      cacheWrite: costs.map((c) => c.cacheWriteTokens),
      uncached: costs.map((c) => c.uncachedInputTokens),
      output: costs.map((c) => c.outputTokens),
      costUsd: costs.map((c) => round6(c.costUsd)),
      fired: Array.from(lc.fired, (f) => f === 1),
    },
    events: o.events,
    totals: totalsOf(costs, context, { summarizerCostUsd, firings: o.events.length, maxDepth }),
    baselines: {
      none: { context: noneContext, totals: totalsOf(noneCosts, noneContext, { summarizerCostUsd: 0, firings: 0, maxDepth: 0 }), contextWindow: window, overflowAtCall: overflow < 0 ? null : overflow },
      source: { context: sourceContext, events: sourceEvents, totals: totalsOf(recorded, sourceContext, { summarizerCostUsd: 0, firings: sourceEvents.length, maxDepth: 0 }) },
    },
  };
}
