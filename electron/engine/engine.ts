/**
 * The engine that runs one compaction pass: resolves the parameters, finds or creates
 * the variant, opens a run, builds the PassContext (lazy turn reads, summaries, the
 * summarizer behind cache + tier ladder + semaphore, progress, events, cancellation),
 * calls the strategy's pass and closes the run with its status and stats.
 *
 * Used by the CLI (`compact`), the Electron main process (from a worker thread) and the
 * browser-mode server. Consistency rule: passes write summaries and state in ONE
 * transaction at commit, so a cancelled or failed run leaves nothing partial; the
 * engine only ever writes the run row and its events around them.
 */
import { stageMetas, stageTurns } from '../../shared/strategies/mask-stage.js';
import { buildSpanIndex, prefixIndex } from '../../shared/strategies/spans.js';
import { setMaxListeners } from 'node:events';
import type { DB } from '../store/db.js';
import { getSession } from '../store/sessions.js';
import { readUserPrices } from '../store/settings.js';
import { listExternalCompactions, listTurnMetas, listTurns } from '../store/turns.js';
import { listModelCalls } from '../store/model-calls.js';
import { fitSessionOverhead, transcriptTokensBefore } from '../../shared/usage/overhead.js';
import type { ReplaySource } from '../../shared/replay/timeline.js';
import { measureAtCall } from '../../shared/replay/measure-at.js';
import { loadSourceChildren } from './source-children.js';
import { claimPassRun, startHeartbeat } from '../store/run-owner.js';
import { addRunEvent, findVariantByKey, finishRun, getOrCreateVariant, getVariant, listExistingSummaries, renameVariant, startRun, variantKeyHash } from '../store/variants.js';
import { countTokens, DEFAULT_TOKENIZER, isTokenizerName, memoizedCounter, type TokenizerName } from '../tokenizer.js';
import { defaultFallbackLadder, planPrepared, prepareStrategy, visibleTokens, type PreparedStrategy } from '../../shared/strategies/index.js';
import { ParamError } from '../../shared/strategies/params.js';
import type { Plan, StrategyName, VariantState } from '../../shared/strategies/types.js';
import { requestMark, requestsSince, type Summarizer } from '../../shared/strategies/summarizer.js';
import type { RunStatus, SummarizerConfig, VariantInfo } from '../../shared/contract.js';
import type { Turn, TurnMeta } from '../../shared/model/turn.js';
import { callsOf } from '../../shared/replay/live.js';
import type { PassContext, TieredSummary } from '../../shared/passes/context.js';
import { sqliteVariantStore } from './variant-store.js';
import { modelFreePassLedger } from './summary-ledger.js';
import { configForStrategy, createSummarizer, fallbackLadderOf, identityOfSummarizer, isSummarizer, promptOverridesOf, promptVersionOf, summarizerIdentity, type SummarizerSetup } from '../summarize/index.js';
import type { OpenAiSummarizer } from '../summarize/openai.js';
import type { PromptOverrides } from '../../shared/summarize/prompts.js';
import { abortError, Semaphore, summarizeWithTiers } from '../summarize/tiers.js';
import { redactSecrets } from '../held-secrets.js';

/** Summarizer calls in flight at once for one pass, unless the caller says otherwise. */
export const DEFAULT_CONCURRENCY = 4;

export interface RunProgress {
  runId: number;
  variantId: number;
  done: number;
  total: number;
  tokens: number;
  message?: string;
}

export interface RunCompactionOptions {
  sessionId: number;
  strategy: StrategyName;
  /** Raw parameters (CLI strings, window numbers); resolved against the strategy's specs. */
  params?: Record<string, unknown>;
  /** A built summarizer, or a config (+ apiKey) the factory turns into one. Default: extractive. */
  summarizer?: Summarizer | SummarizerSetup;
  /** Max summarizer calls in flight (default 4). */
  concurrency?: number;
  /** Run the pass even when the strategy's trigger says no (dag `compact` vs `compactIfNeeded`). */
  force?: boolean;
  signal?: AbortSignal;
  onProgress?(p: RunProgress): void;
  /** The run exists (its id is known) and the pass is about to start: services answer startCompaction here. */
  onRunStarted?(ids: { runId: number; variantId: number }): void;
  onEvent?(e: { runId: number; kind: string; data: Record<string, unknown> }): void;
  /** Default: the tokenizer the session was imported with. */
  tokenizer?: TokenizerName;
  /** Summary cache LRU bound (default 1000). */
  cacheLimit?: number;
  /**
   * "Compact as of call N": a one-shot pass over the session cut before model call N (the
   * turns the model had seen at that call, positions < the call's assistant turn), to set a
   * strategy beside the source tool's own compaction at the same point. Recorded in the
   * variant's parameters (`asOfCall`), so it is a variant of its own, and in the run's.
   */
  asOfCall?: number;
}

export interface RunCompactionResult {
  variantId: number;
  runId: number;
  status: Exclude<RunStatus, 'running'>;
  stats: Record<string, unknown>;
  error: string | null;
}

export class EngineError extends Error {
  constructor(
    readonly code: 'not_found' | 'bad_params',
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

function sessionTokenizer(db: DB, sessionId: number, override?: TokenizerName): TokenizerName {
  if (override) return override;
  const s = getSession(db, sessionId);
  if (!s) throw new EngineError('not_found', `session ${sessionId} not found`);
  return isTokenizerName(s.tokenizer) ? s.tokenizer : DEFAULT_TOKENIZER;
}

/** The strategy with its parameters resolved: once per request (ParamError on bad input). */
export function prepare(strategy: StrategyName, raw: Record<string, unknown> | undefined): PreparedStrategy {
  try {
    return prepareStrategy(strategy, raw);
  } catch (e) {
    if (e instanceof ParamError && /unknown strategy/.test(e.message)) throw new EngineError('bad_params', e.message);
    throw e;
  }
}

/**
 * The variant for (session, strategy, params, summarizer): created empty when new. Only
 * explicit actions call this (the window's Save, `saveVariant`); runs create theirs in
 * runCompaction / runReplay. The keying is the engine's, so the window and the CLI agree
 * on identity.
 */
export function resolveVariantFor(db: DB, o: { sessionId: number; strategy: StrategyName; params?: Record<string, unknown>; summarizer?: SummarizerConfig }): VariantInfo {
  if (!getSession(db, o.sessionId)) throw new EngineError('not_found', `session ${o.sessionId} not found`);
  const { params } = prepare(o.strategy, o.params);
  const config = configForStrategy(o.summarizer, o.strategy);
  return getOrCreateVariant(db, { sessionId: o.sessionId, strategy: o.strategy, params, summarizer: summarizerIdentity(config), promptVersion: promptVersionOf(config), promptOverrides: promptOverridesOf(config) });
}

/**
 * The existing variant for (session, strategy, params, summarizer), or null: never
 * creates one. The window's `findVariant` looks up the variant of the parameters on
 * screen with this, so moving a slider writes nothing.
 */
export function findVariantFor(db: DB, o: { sessionId: number; strategy: StrategyName; params?: Record<string, unknown>; summarizer?: SummarizerConfig }): VariantInfo | null {
  if (!getSession(db, o.sessionId)) throw new EngineError('not_found', `session ${o.sessionId} not found`);
  const { params } = prepare(o.strategy, o.params);
  return findVariant(db, o.sessionId, o.strategy, params, o.summarizer);
}

/**
 * The variant key a pass with these options runs on (runCompaction's variant, "as of call N"
 * included), computed without the database: the app's runner keys two-line's one task per
 * conversation by it. Throws on bad parameters, as the pass would.
 */
export function passVariantKey(o: { strategy: StrategyName; params?: Record<string, unknown>; summarizer?: SummarizerConfig; asOfCall?: number }): string {
  const { params } = prepare(o.strategy, o.params);
  const config = configForStrategy(o.summarizer, o.strategy);
  const asOf: Record<string, number> = o.asOfCall === undefined ? {} : { asOfCall: o.asOfCall };
  return variantKeyHash({ strategy: o.strategy, params: { ...params, ...asOf }, summarizer: summarizerIdentity(config), promptVersion: promptVersionOf(config) });
}

/** Finds an existing variant for this key without creating one. */
function findVariant(db: DB, sessionId: number, strategy: StrategyName, params: Record<string, number>, summarizer?: SummarizerConfig): VariantInfo | null {
  const config = configForStrategy(summarizer, strategy);
  const hash = variantKeyHash({ strategy, params, summarizer: summarizerIdentity(config), promptVersion: promptVersionOf(config) });
  return findVariantByKey(db, sessionId, hash);
}

export interface PlanSessionOptions {
  sessionId: number;
  strategy: StrategyName;
  params?: Record<string, unknown>;
  /** Plan against this variant's summaries and state; default: the variant these params would resolve to, if it exists. */
  variantId?: number;
  summarizer?: SummarizerConfig;
}

/**
 * Everything the replay and its baselines need from the store: the turns, the usage the
 * source reported per call, its overhead fit, its own compactions and its child sessions'
 * calls (the source tool's compaction calls, its subagents). `children: false` leaves those out:
 * a plan or a pass needs only the context measure (shared/replay/measure-at.ts), not the baselines.
 */
export function loadReplaySource(db: DB, sessionId: number, overheadTokens?: number, opts: { children?: boolean } = {}): ReplaySource & { session: NonNullable<ReturnType<typeof getSession>> } {
  const session = getSession(db, sessionId);
  if (!session) throw new EngineError('not_found', `session ${sessionId} not found`);
  const metas = listTurnMetas(db, sessionId);
  const usage = listModelCalls(db, sessionId);
  const external = listExternalCompactions(db, sessionId);
  const fit = fitSessionOverhead(usage, transcriptTokensBefore(usage, metas.map((m) => m.tokenCount)), external[0]?.boundaryPosition ?? null);
  return { session, sessionId, metas, usage, fit, external, overheadTokens, ...(opts.children === false ? {} : { children: loadSourceChildren(db, sessionId) }) };
}

/** The pure planner over the stored session: no summarizer call, no write. */
export function planSession(db: DB, o: PlanSessionOptions): Plan<Record<string, number>> & { variantId: number | null } {
  if (!getSession(db, o.sessionId)) throw new EngineError('not_found', `session ${o.sessionId} not found`);
  const prepared = prepare(o.strategy, o.params);
  const params = prepared.params;
  let variant: VariantInfo | null;
  if (o.variantId !== undefined) {
    variant = getVariant(db, o.variantId);
    if (!variant || variant.sessionId !== o.sessionId) throw new EngineError('not_found', `variant ${o.variantId} not found for session ${o.sessionId}`);
  } else {
    variant = findVariant(db, o.sessionId, o.strategy, params, o.summarizer);
  }
  const plan = planPrepared(prepared, {
    turns: listTurnMetas(db, o.sessionId),
    summaries: variant ? listExistingSummaries(db, variant.id) : [],
    state: variant?.state ?? {},
    // The context measure the replay uses (shared/replay/measure-at.ts), for the next call.
    ...measureAtCall(loadReplaySource(db, o.sessionId, undefined, { children: false }), params, null),
  });
  return { ...plan, variantId: variant?.id ?? null };
}

const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** What a run's summarizer calls added up to. */
export interface SummarizerCounters {
  summarizerCalls: number;
  cacheHits: number;
  summariesRequested: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

export const newCounters = (): SummarizerCounters => ({ summarizerCalls: 0, cacheHits: 0, summariesRequested: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 });

/** A PassContext's `summarize`: tier ladder + summary cache + semaphore, counted, cancellable. Passes and replays share it. */
export function summarizeVia(o: { db: DB; summarizer: Summarizer; countTokens: (text: string) => number; semaphore: Semaphore; signal: AbortSignal; cacheLimit?: number; counters: SummarizerCounters; ladder?: boolean }): PassContext['summarize'] {
  const userPrices = readUserPrices(o.db);
  const { counters, signal } = o;
  return async (req, opts): Promise<TieredSummary> => {
    // The extractive summarizer never awaits I/O: without a trip through the macrotask
    // queue a worker running a long pass would never read its 'cancel' message.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal.aborted) throw abortError(signal);
    counters.summariesRequested++;
    const s = await summarizeWithTiers({ db: o.db, summarizer: o.summarizer, request: req, countTokens: o.countTokens, semaphore: o.semaphore, signal, cacheLimit: o.cacheLimit, allowFallback: opts?.allowFallback, ladder: o.ladder, userPrices });
    counters.summarizerCalls += s.calls;
    if (s.cacheHit) counters.cacheHits++;
    counters.tokensIn += s.tokensIn;
    counters.tokensOut += s.tokensOut;
    counters.costUsd += s.costUsd;
    return s;
  };
}

/** Runs one pass. Bad parameters or an unknown session throw before any run is recorded. */
/**
 * The summarizer a run uses (built from a config with the user's prices and the strategy's
 * prompt overrides, or given) and the identity its variant is keyed by, with the overrides
 * stored beside it. A summarizer that cannot be built (no API key for api.openai.com) is a
 * setup error: no run is recorded.
 */
export function summarizerFor(db: DB, setup: Summarizer | SummarizerSetup | undefined, strategy: StrategyName): { summarizer: Summarizer; identity: SummarizerConfig; promptOverrides: PromptOverrides; ladder: boolean } {
  if (isSummarizer(setup)) return { summarizer: setup, identity: identityOfSummarizer(setup), promptOverrides: (setup as Partial<OpenAiSummarizer>).prompts ?? {}, ladder: defaultFallbackLadder(strategy) };
  try {
    const config = configForStrategy(setup, strategy);
    return { summarizer: createSummarizer({ ...config, kind: config?.kind ?? 'extractive', userPrices: readUserPrices(db) }), identity: summarizerIdentity(config), promptOverrides: promptOverridesOf(config), ladder: fallbackLadderOf(config, strategy) };
  } catch (e) {
    throw new EngineError('bad_params', errorMessage(e));
  }
}

interface PassRun {
  ctx: PassContext;
  counters: SummarizerCounters;
  /** Tokens the model sees for the variant now (`visibleTokens`: the figure the window's gauge and plans show). */
  seenTokens(): number;
}

/**
 * The PassContext of one run: the staged turn view, lazy turn reads (served from the
 * replay accounting's full read once it happened), the SQLite-backed store, the summarizer
 * behind cache + tier ladder + semaphore, progress, events and cancellation.
 */
function passRun(db: DB, o: RunCompactionOptions, run: { prepared: PreparedStrategy; variant: VariantInfo; runId: number; summarizer: Summarizer; signal: AbortSignal; tokenizer: TokenizerName; cutTurn: number | null; ladder: boolean }): PassRun {
  const { prepared, variant, runId, summarizer, signal, tokenizer } = run;
  // As of a call: the pass, its reads and its accounting see only the turns before the cut.
  const cut = run.cutTurn ?? Infinity;
  const sessionTurns = () => {
    const turns = listTurns(db, o.sessionId);
    return run.cutTurn === null ? turns : turns.slice(0, run.cutTurn);
  };
  const params = prepared.params;
  const semaphore = new Semaphore(o.concurrency ?? DEFAULT_CONCURRENCY);
  const counters = newCounters();
  // Pre-stages (shared/strategies/mask-stage.ts): the pass plans on the staged view, as planPrepared does for the window.
  const rawMetas = listTurnMetas(db, o.sessionId);
  // Compact as of call N: the pass (and its token figures) sees only the turns before the cut.
  const cutMetas = run.cutTurn === null ? rawMetas : rawMetas.slice(0, run.cutTurn);
  // As of a call, tool-cycle safety is the session's, as in the replay: a call still open at
  // that call (answered later) is never cut from its result (shared/strategies/spans.ts).
  if (run.cutTurn !== null) prefixIndex(buildSpanIndex(rawMetas), cutMetas);
  const metas = stageMetas(params, cutMetas) as TurnMeta[];
  const staged = params.preMaskWindow !== undefined && params.preMaskWindow >= 0;
  const count = (text: string) => countTokens(text, tokenizer);
  let allTurns: Turn[] | null = null;
  let stagedTurns: readonly Turn[] | null = null;
  // The one rule for the figure (shared/strategies/index.ts), over the stored summaries and state.
  const seenTokens = () =>
    visibleTokens(prepared, { turns: cutMetas, summaries: listExistingSummaries(db, variant.id), state: (getVariant(db, variant.id)?.state ?? {}) as VariantState });
  const ctx: PassContext = {
    sessionId: o.sessionId,
    variant,
    metas,
    // The context measure the replay uses, and as of call N the figure the source reported there.
    ...measureAtCall(loadReplaySource(db, o.sessionId, undefined, { children: false }), params, o.asOfCall ?? null),
    // With a pre-stage the summarizer sees the staged (masked) turns.
    readTurns: (from, to) => {
      const end = Math.max(0, Math.min(to, cut));
      if (staged) {
        allTurns ??= sessionTurns();
        stagedTurns ??= stageTurns(params, allTurns, count);
        return stagedTurns.slice(Math.max(0, from), end);
      }
      return allTurns ? allTurns.slice(Math.max(0, from), end) : listTurns(db, o.sessionId, { from, to: end });
    },
    store: sqliteVariantStore(db, { sessionId: o.sessionId, variantId: variant.id, runId }),
    state: (getVariant(db, variant.id)?.state ?? {}) as VariantState,
    summarizer,
    concurrency: semaphore.limit,
    signal,
    summarize: summarizeVia({ db, summarizer, countTokens: count, semaphore, signal, cacheLimit: o.cacheLimit, counters, ladder: run.ladder }),
    countTokens: count,
    progress(done, total, tokens, message) {
      o.onProgress?.({ runId, variantId: variant.id, done, total, tokens, message });
    },
    event(kind, data = {}) {
      addRunEvent(db, runId, kind, data);
      o.onEvent?.({ runId, kind, data });
    },
    checkCancelled() {
      if (signal.aborted) throw abortError(signal);
    },
  };
  return { ctx, counters, seenTokens };
}

/**
 * Where "as of call N" cuts the session: the position of call N's assistant turn (calls are
 * the assistant turns, shared/replay/live.ts `callsOf`), so the pass sees turns [0, cut):
 * exactly what the model had been sent at that call.
 */
export function cutTurnOf(db: DB, sessionId: number, asOfCall: number): number {
  const calls = callsOf(listTurnMetas(db, sessionId));
  if (!Number.isInteger(asOfCall) || asOfCall < 0 || asOfCall >= calls.length) throw new EngineError('bad_params', `asOfCall must be a call of the session (0-${calls.length - 1}), got ${asOfCall}`);
  return calls[asOfCall].position;
}

/** The name of a variant made by "compact as of call N": `<strategy> as of call <N>`. */
export function asOfVariantName(strategy: StrategyName, asOfCall: number): string {
  return `${strategy} as of call ${asOfCall}`;
}

function nameAsOfVariant(db: DB, v: VariantInfo, asOfCall: number): VariantInfo {
  const name = asOfVariantName(v.strategy, asOfCall);
  renameVariant(db, v.id, name);
  return { ...v, name };
}

/** Runs one pass. Bad parameters or an unknown session throw before any run is recorded. */
export async function runCompaction(db: DB, o: RunCompactionOptions): Promise<RunCompactionResult> {
  const tokenizer = sessionTokenizer(db, o.sessionId, o.tokenizer);
  const prepared = prepare(o.strategy, o.params);
  const cutTurn = o.asOfCall === undefined ? null : cutTurnOf(db, o.sessionId, o.asOfCall);
  const { summarizer, identity, promptOverrides, ladder } = summarizerFor(db, o.summarizer, o.strategy);
  const asOf: Record<string, number> = o.asOfCall === undefined ? {} : { asOfCall: o.asOfCall };
  const found = getOrCreateVariant(db, { sessionId: o.sessionId, strategy: o.strategy, params: { ...prepared.params, ...asOf }, summarizer: identity, promptVersion: summarizer.promptVersion, promptOverrides });
  // A one-shot "as of call N" variant is named so (the CLI's list, the window's table), unless named already.
  const variant = o.asOfCall !== undefined && found.name === null ? nameAsOfVariant(db, found, o.asOfCall) : found;
  const force = o.force ?? false;
  // One pass per session across processes (the app and a CLI on one database): refused with 'busy'.
  const runId = claimPassRun(db, o.sessionId, () => startRun(db, variant.id, { ...prepared.params, force, ...(cutTurn === null ? {} : { asOfCall: o.asOfCall, cutTurn }) }));
  const stopHeartbeat = startHeartbeat(db, runId);
  const signal = o.signal ?? new AbortController().signal;
  // Every summarizer call (and the openai client's fetch) listens on this one signal.
  setMaxListeners(0, signal);
  const started = Date.now();
  const { ctx, counters, seenTokens } = passRun(db, o, { prepared, variant, runId, summarizer, signal, tokenizer, cutTurn, ladder });
  const requestsAtStart = requestMark(summarizer);

  // Run accounting: tokens the model sees before and after, the engine's counters, the run record.
  o.onRunStarted?.({ runId, variantId: variant.id });
  let tokensBefore: number | null = null;
  const baseStats = () => ({
    ...counters,
    costUsd: Math.round(counters.costUsd * 1e6) / 1e6,
    // summarizerCalls counts the summaries asked of the model (tier rungs); requests the HTTP requests made for them, retries included.
    ...requestsSince(summarizer, requestsAtStart),
    tokensBefore,
    durationMs: Date.now() - started,
  });
  try {
    tokensBefore = seenTokens();
    ctx.checkCancelled();
    const outcome = await prepared.definition.pass(ctx, prepared.params, { force });
    const tokensAfter = seenTokens();
    // A variant without summaries whose state drops or masks turns (window, masking,
    // forgetting) has its loss ledger as an event of the pass: there is no summary to hang it on.
    const stateAfter = (getVariant(db, variant.id)?.state ?? {}) as VariantState;
    if (outcome.status === 'completed' && Object.keys(stateAfter).length > 0 && listExistingSummaries(db, variant.id).length === 0) {
      const turns = cutTurn === null ? listTurns(db, o.sessionId) : listTurns(db, o.sessionId, { from: 0, to: cutTurn });
      const ledger = modelFreePassLedger({ strategy: o.strategy, params: prepared.params, turns, state: stateAfter, countTokens: memoizedCounter((text) => countTokens(text, tokenizer), turns) });
      if (ledger) addRunEvent(db, runId, 'ledger', { ledger });
    }
    // The pass's own figures first; the engine's accounting (calls, hits, tokens) wins on a clash.
    const stats = { ...outcome.stats, ...baseStats(), tokensAfter };
    finishRun(db, runId, outcome.status, stats);
    return { variantId: variant.id, runId, status: outcome.status, stats, error: null };
  } catch (err) {
    const cancelled = signal.aborted;
    const status = cancelled ? 'cancelled' : 'failed';
    const error = cancelled ? 'cancelled' : redactSecrets(errorMessage(err), 2000);
    let tokensAfter: number | null = null;
    try {
      tokensAfter = seenTokens();
    } catch {
      // The run is already failing; its record must still be written.
    }
    const stats = { ...baseStats(), tokensAfter };
    finishRun(db, runId, status, stats, error);
    return { variantId: variant.id, runId, status, stats, error };
  } finally {
    stopHeartbeat();
  }
}
