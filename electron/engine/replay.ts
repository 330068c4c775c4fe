/**
 * A replay run (run kind 'replay'): the session walked model call by model call under a
 * variant with the live loop (shared/replay/live.ts), the variant's summarizer behind the
 * same cache, tier ladder and semaphore as a pass (a second replay makes no summarizer
 * call), then priced with prompt caching (shared/cost/caching.ts) beside two baselines:
 * no compaction, and the source tool's own compactions with its recorded usage.
 *
 * A replay never touches turns nor the variant's own summaries or state: it writes its
 * summaries (tagged with the replay run and the call at which each was made), its firings
 * as run events and its timeline, in ONE transaction when it completes.
 */
import { setMaxListeners } from 'node:events';
import type { DB } from '../store/db.js';
import { getSession } from '../store/sessions.js';
import { listExternalCompactions, listTurnMetas, listTurns } from '../store/turns.js';
import { listModelCalls } from '../store/model-calls.js';
import { addRunEvent, finishRun, getOrCreateVariant, startRun } from '../store/variants.js';
import { insertReplaySummaries, saveReplayTimeline } from '../store/replays.js';
import { countTokens, DEFAULT_TOKENIZER, isTokenizerName } from '../tokenizer.js';
import { createSummarizer, identityOfSummarizer, isSummarizer, summarizerIdentity, type SummarizerSetup } from '../summarize/index.js';
import { Semaphore } from '../summarize/tiers.js';
import { EngineError, memoizedCounter, newCounters, prepare, summarizeVia, type RunProgress } from './engine.js';
import type { PreparedStrategy } from '../../shared/strategies/index.js';
import { stageTurns } from '../../shared/strategies/mask-stage.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import type { Summarizer } from '../../shared/strategies/summarizer.js';
import type { PassContext } from '../../shared/passes/context.js';
import { MemoryVariantStore } from '../../shared/replay/memory-store.js';
import { callsOf, contextOf, runLive, type ContextModel, type LiveCallRecord, type LiveResult } from '../../shared/replay/live.js';
import { simulateCalls, totals as costTotals, priceRecordedUsage, type CallCost } from '../../shared/cost/caching.js';
import { priceOf } from '../../shared/cost/prices.js';
import { fitSessionOverhead, transcriptTokensBefore, DEFAULT_OVERHEAD_TOKENS } from '../../shared/usage/overhead.js';
import { reportedContext, type ModelCallUsage } from '../../shared/usage/types.js';
import type { ReplayEventInfo, ReplayTimeline, ReplayTotals, RunStatus, SourceCompactionEvent } from '../../shared/contract.js';
import type { Turn, TurnMeta } from '../../shared/model/turn.js';

/** The context window the "no compaction" baseline overflows, when the variant names none. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** Priced as this model when the session reports none (its calls then cost what an Anthropic call would). */
export const DEFAULT_PRICING_MODEL = 'claude-sonnet-4-5';

export interface RunReplayOptions {
  sessionId: number;
  strategy: StrategyName;
  params?: Record<string, unknown>;
  summarizer?: Summarizer | SummarizerSetup;
  concurrency?: number;
  /** Constant overhead used when the session has no reported usage to fit. */
  overheadTokens?: number;
  commitDelayCalls?: number;
  signal?: AbortSignal;
  onProgress?(p: RunProgress): void;
  onRunStarted?(ids: { runId: number; variantId: number }): void;
  cacheLimit?: number;
}

export interface RunReplayResult {
  variantId: number;
  runId: number;
  status: Exclude<RunStatus, 'running'>;
  timeline: ReplayTimeline | null;
  error: string | null;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) || null : null);

function totalsOf(costs: readonly CallCost[], context: readonly number[], extra: { summarizerCostUsd: number; firings: number; maxDepth: number }): ReplayTotals {
  const t = costTotals(costs);
  return {
    modelCalls: t.calls,
    inputTokens: t.promptTokens,
    cacheReadTokens: t.cacheReadTokens,
    cacheWriteTokens: t.cacheWriteTokens,
    outputTokens: t.outputTokens,
    costUsd: round6(t.costUsd + extra.summarizerCostUsd),
    summarizerCostUsd: round6(extra.summarizerCostUsd),
    peakContext: context.reduce((a, b) => Math.max(a, b), 0),
    firings: extra.firings,
    maxDepth: extra.maxDepth,
  };
}

/** The model the session's calls were priced as, and the cache lifetime its writes used. */
function pricingOf(usage: readonly ModelCallUsage[]): { model: string; ttl: '5m' | '1h' } {
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

/**
 * Everything the replay and its baselines need from the store: turns, calls with the
 * usage the source reported, the context model fitted from it, the source's compactions.
 */
export function loadReplaySession(db: DB, sessionId: number, overheadTokens = DEFAULT_OVERHEAD_TOKENS) {
  const session = getSession(db, sessionId);
  if (!session) throw new EngineError('not_found', `session ${sessionId} not found`);
  const metas = listTurnMetas(db, sessionId);
  const usage = listModelCalls(db, sessionId);
  const byPosition = new Map(usage.map((u) => [u.position, u]));
  const calls = callsOf(metas, (p) => {
    const u = byPosition.get(p);
    return { timestampMs: ms(u?.timestamp), outputTokens: u?.placeholder ? null : (u?.outputTokens ?? null) };
  });
  const external = listExternalCompactions(db, sessionId);
  const fit = fitSessionOverhead(usage, transcriptTokensBefore(usage, metas.map((m) => m.tokenCount)), external[0]?.boundaryPosition ?? null);
  const model: ContextModel & { source: 'fit' | 'parameter' } = fit ? { a: fit.a, b: fit.b, source: 'fit' } : { a: overheadTokens, b: 1, source: 'parameter' };
  return { session, metas, usage, byPosition, calls, external, model, pricing: pricingOf(usage) };
}

type Loaded = ReturnType<typeof loadReplaySession>;

/** The timeline document of a finished live replay: costs per call and the two baselines. */
export function buildTimeline(o: { loaded: Loaded; prepared: PreparedStrategy; live: LiveResult; runId: number; variantId: number; status: RunStatus; events: ReplayEventInfo[] }): ReplayTimeline {
  const { loaded, prepared, live } = o;
  const { model, pricing, calls, metas } = loaded;
  const sim = (recs: Array<Pick<LiveCallRecord, 'contextTokens' | 'sharedPrefixTokens' | 'outputTokens' | 'timestampMs'>>) =>
    simulateCalls(
      recs.map((r) => ({ promptTokens: r.contextTokens, sharedPrefixTokens: r.sharedPrefixTokens, outputTokens: r.outputTokens, timestampMs: r.timestampMs })),
      { model: pricing.model, ttl: pricing.ttl },
    );
  const costs = sim(live.calls);
  const summarizerCostUsd = o.events.reduce((n, e) => n + e.costUsd, 0);
  const maxDepth = o.events.reduce((d, e) => Math.max(d, e.maxDepth), 0);
  const context = live.calls.map((c) => c.contextTokens);

  // Baseline 1: no compaction — the whole transcript at every call, each prompt extends the last.
  const tokenPrefix: number[] = [0];
  for (const m of metas) tokenPrefix.push(tokenPrefix[tokenPrefix.length - 1] + m.tokenCount);
  const noneContext = calls.map((c) => contextOf(model, tokenPrefix[c.position]));
  const noneCosts = sim(calls.map((c, k) => ({ contextTokens: noneContext[k], sharedPrefixTokens: k === 0 ? 0 : noneContext[k - 1], outputTokens: c.outputTokens, timestampMs: c.timestampMs })));
  const window = Number(prepared.params.tokenBudget ?? prepared.params.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  const overflow = noneContext.findIndex((c) => c > window);

  // Baseline 2: what the source tool did — its recorded context and cost where it reported them.
  const sourceContext = calls.map((c) => {
    const u = loaded.byPosition.get(c.position);
    return u ? reportedContext(u) : null;
  });
  const sourceEvents: SourceCompactionEvent[] = loaded.external.map((x) => {
    let call = calls.findIndex((c) => c.position >= x.boundaryPosition);
    if (call < 0) call = calls.length;
    const before = Math.max(0, call - 1);
    return { call, turn: x.boundaryPosition, reason: `${x.trigger} compaction by the source tool (turns ${x.firstPosition}-${x.lastPosition})`, contextBefore: calls[before] ? contextOf(model, tokenPrefix[calls[before].position]) : 0, preTokens: x.preTokens };
  });
  const recorded: CallCost[] = calls.map((c) => {
    const u = loaded.byPosition.get(c.position);
    if (!u || u.placeholder) return { promptTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, uncachedInputTokens: 0, outputTokens: c.outputTokens, costUsd: 0 };
    const write = (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0);
    return { promptTokens: reportedContext(u) ?? 0, cacheReadTokens: u.cacheReadTokens ?? 0, cacheWriteTokens: write, uncachedInputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0, costUsd: priceRecordedUsage(u).costUsd };
  });

  const price = priceOf(pricing.model);
  const def = prepared.definition;
  return {
    runId: o.runId,
    variantId: o.variantId,
    sessionId: loaded.session.id,
    strategy: prepared.strategy,
    params: prepared.params,
    status: o.status,
    contextModel: { a: model.a, b: model.b, source: model.source },
    pricing: { model: pricing.model, known: price.known, ttl: pricing.ttl },
    lines: def.live.lines(prepared.params),
    note: def.live.note ?? null,
    calls: {
      position: live.calls.map((c) => c.position),
      timestampMs: live.calls.map((c) => c.timestampMs),
      transcript: live.calls.map((c) => c.transcriptTokens),
      context,
      cacheRead: costs.map((c) => c.cacheReadTokens),
      cacheWrite: costs.map((c) => c.cacheWriteTokens),
      uncached: costs.map((c) => c.uncachedInputTokens),
      output: costs.map((c) => c.outputTokens),
      costUsd: costs.map((c) => round6(c.costUsd)),
      fired: live.calls.map((c) => c.fired),
    },
    events: o.events,
    totals: totalsOf(costs, context, { summarizerCostUsd, firings: o.events.length, maxDepth }),
    baselines: {
      none: { context: noneContext, totals: totalsOf(noneCosts, noneContext, { summarizerCostUsd: 0, firings: 0, maxDepth: 0 }), contextWindow: window, overflowAtCall: overflow < 0 ? null : overflow },
      source: { context: sourceContext, events: sourceEvents, totals: totalsOf(recorded, sourceContext.map((c) => c ?? 0), { summarizerCostUsd: 0, firings: sourceEvents.length, maxDepth: 0 }) },
    },
  };
}

/** Runs one replay. Bad parameters or an unknown session throw before any run is recorded. */
export async function runReplay(db: DB, o: RunReplayOptions): Promise<RunReplayResult> {
  const loaded = loadReplaySession(db, o.sessionId, o.overheadTokens);
  const prepared = prepare(o.strategy, o.params);
  const tokenizer = isTokenizerName(loaded.session.tokenizer) ? loaded.session.tokenizer : DEFAULT_TOKENIZER;
  let summarizer: Summarizer;
  try {
    summarizer = isSummarizer(o.summarizer) ? o.summarizer : createSummarizer(o.summarizer);
  } catch (e) {
    throw new EngineError('bad_params', e instanceof Error ? e.message : String(e));
  }
  const identity = isSummarizer(o.summarizer) ? identityOfSummarizer(o.summarizer) : summarizerIdentity(o.summarizer);
  const variant = getOrCreateVariant(db, { sessionId: o.sessionId, strategy: o.strategy, params: prepared.params, summarizer: identity, promptVersion: summarizer.promptVersion });
  const runId = startRun(db, variant.id, { ...prepared.params, overheadTokens: o.overheadTokens ?? null, commitDelayCalls: o.commitDelayCalls ?? 1 }, 'replay');
  o.onRunStarted?.({ runId, variantId: variant.id });
  const signal = o.signal ?? new AbortController().signal;
  setMaxListeners(0, signal);
  const counters = newCounters();
  const semaphore = new Semaphore(o.concurrency ?? 4);
  let allTurns: Turn[] | null = null;
  const count = (text: string) => countTokens(text, tokenizer);
  const store = new MemoryVariantStore();
  const summarize = summarizeVia({ db, summarizer, countTokens: count, semaphore, signal, cacheLimit: o.cacheLimit, counters });
  const started = Date.now();
  let latency = 0;
  try {
    const live = await runLive({
      prepared,
      metas: loaded.metas,
      calls: loaded.calls,
      model: loaded.model,
      store,
      commitDelayCalls: o.commitDelayCalls,
      signal,
      work: () => ({ summarizerCalls: counters.summarizerCalls, tokensIn: counters.tokensIn, tokensOut: counters.tokensOut, costUsd: counters.costUsd, latencyMs: latency }),
      // Through the macrotask queue now and then, so a worker reads its cancel message.
      beforeCall: (k) => (k % 256 === 0 ? new Promise<void>((r) => setImmediate(r)) : undefined),
      onProgress: (done, total, firings) => {
        if (done % 64 === 0 || done === total) o.onProgress?.({ runId, variantId: variant.id, done, total, tokens: 0, message: `call ${done} of ${total}, ${firings} firing(s)` });
      },
      context: (end, metas: TurnMeta[], overheadTokens, backgroundPending): PassContext => ({
        sessionId: o.sessionId,
        variant,
        metas,
        readTurns: (from, to) => {
          allTurns ??= listTurns(db, o.sessionId);
          // Pre-stages over the turns before the call (the mask window slides as the session grows).
          const turns = stageTurns(prepared.params, allTurns.slice(0, end), count);
          return turns.slice(Math.max(0, from), Math.max(0, Math.min(to, end))) as Turn[];
        },
        store,
        state: store.state(),
        summarizer,
        concurrency: semaphore.limit,
        signal,
        overheadTokens,
        live: { backgroundPending },
        summarize: async (req, opts) => {
          const t0 = Date.now();
          try {
            return await summarize(req, opts);
          } finally {
            latency += Date.now() - t0;
          }
        },
        countTokens: memoizedCounter(count),
        progress() {},
        event() {},
        checkCancelled() {
          if (signal.aborted) throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
        },
      }),
    });

    const compactedAtCall = new Map<number, number>();
    const events: ReplayEventInfo[] = live.firings.map((f) => {
      for (const id of f.compacted) compactedAtCall.set(id, f.call);
      return {
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
      };
    });
    let timeline: ReplayTimeline | null = null;
    db.transaction(() => {
      const ids = insertReplaySummaries(db, { variantId: variant.id, runId, summaries: store.all(), compactedAtCall });
      for (const e of events) {
        e.summaryIds = e.summaryIds.map((id) => ids.get(id) ?? id);
        addRunEvent(db, runId, 'firing', { ...e, state: live.firings[events.indexOf(e)].state });
      }
      timeline = buildTimeline({ loaded, prepared, live, runId, variantId: variant.id, status: 'completed', events });
      saveReplayTimeline(db, runId, timeline);
      finishRun(db, runId, 'completed', { ...timeline.totals, summariesRequested: counters.summariesRequested, cacheHits: counters.cacheHits, summarizerCalls: counters.summarizerCalls, durationMs: Date.now() - started });
    })();
    return { variantId: variant.id, runId, status: 'completed', timeline, error: null };
  } catch (err) {
    const cancelled = signal.aborted;
    const error = cancelled ? 'cancelled' : err instanceof Error ? err.message : String(err);
    finishRun(db, runId, cancelled ? 'cancelled' : 'failed', { ...counters, durationMs: Date.now() - started }, error);
    return { variantId: variant.id, runId, status: cancelled ? 'cancelled' : 'failed', timeline: null, error };
  }
}
