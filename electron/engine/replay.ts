/**
 * A replay run (run kind 'replay'): the session walked model call by model call under a
 * variant with the live loop (shared/replay/live.ts), the variant's summarizer behind the
 * same cache, tier ladder and semaphore as a pass (a second replay makes no summarizer
 * call), then priced with prompt caching (shared/cost/caching.ts) beside two baselines:
 * no compaction, and the source tool's own compactions with its recorded usage.
 *
 * A replay never touches turns nor the variant's own summaries or state: it writes its
 * summaries (tagged with the replay run and the call at which each was made), its firings
 * as run events and its timeline, in ONE transaction when it completes. The events the passes
 * emit (a watermark's compaction_started / _completed / _failed with the design's payload,
 * two-line's digest and background events) are recorded too, each with the call it was
 * made at (`call`), before the firings; the skips (one per quiet call) are not.
 */
import { setMaxListeners } from 'node:events';
import { writeTransaction, type DB } from '../store/db.js';
import { readUserContextWindows, readUserPrices } from '../store/settings.js';
import { listExternalCompactions, listTurns } from '../store/turns.js';
import { recordOwner, startHeartbeat } from '../store/run-owner.js';
import { addRunEvents, finishRun, getOrCreateVariant, startRun } from '../store/variants.js';
import { insertReplaySummaries, saveReplayTimeline } from '../store/replays.js';
import { turnFactStream } from '../../shared/facts/extract.js';
import type { SpanString } from '../../shared/retention/text.js';
import { externalCompactionLedger, recordSummaryLedger, type LedgerSummary, type ReplayLedgerMemory } from './summary-ledger.js';
import { buildMomentView, firingLedger, ledgerGroupEnds, type ViewMoment } from '../../shared/replay/firing-ledger.js';
import { countTokens, DEFAULT_TOKENIZER, isTokenizerName } from '../tokenizer.js';
import type { SummarizerSetup } from '../summarize/index.js';
import { Semaphore } from '../summarize/tiers.js';
import { loadReplaySource, newCounters, prepare, summarizerFor, summarizeVia, type RunProgress } from './engine.js';
import { memoizedCounter } from '../tokenizer.js';
import { stageTurns } from '../../shared/strategies/mask-stage.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import { requestMark, requestsSince, type Summarizer } from '../../shared/strategies/summarizer.js';
import type { PassContext } from '../../shared/passes/context.js';
import { MemoryVariantStore } from '../../shared/replay/memory-store.js';
import { runLive } from '../../shared/replay/live.js';
import { buildTimeline, firingEvents, replayInputs } from '../../shared/replay/timeline.js';
import type { ReplayTimeline, RunStatus } from '../../shared/contract.js';
import { redactSecrets } from '../held-secrets.js';
import type { Turn, TurnMeta } from '../../shared/model/turn.js';

export { MAX_FIRING_LEDGERS } from '../../shared/replay/firing-ledger.js';

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
  /** This session's context window in tokens, whatever its models' (default: each call's model's, shared/cost/windows.ts). */
  contextWindow?: number | null;
  /** Count the session's subagents in the source's recorded total (default true). */
  includeSubagents?: boolean;
}

export interface RunReplayResult {
  variantId: number;
  runId: number;
  status: Exclude<RunStatus, 'running'>;
  timeline: ReplayTimeline | null;
  error: string | null;
}

/** Runs one replay. Bad parameters or an unknown session throw before any run is recorded. */
export async function runReplay(db: DB, o: RunReplayOptions): Promise<RunReplayResult> {
  const source = loadReplaySource(db, o.sessionId, o.overheadTokens);
  const userPrices = readUserPrices(db);
  const inputs = replayInputs(source);
  const prepared = prepare(o.strategy, o.params);
  const tokenizer = isTokenizerName(source.session.tokenizer) ? source.session.tokenizer : DEFAULT_TOKENIZER;
  const { summarizer, identity, promptOverrides, ladder } = summarizerFor(db, o.summarizer, o.strategy);
  const variant = getOrCreateVariant(db, { sessionId: o.sessionId, strategy: o.strategy, params: prepared.params, summarizer: identity, promptVersion: summarizer.promptVersion, promptOverrides });
  const runId = startRun(db, variant.id, { ...prepared.params, overheadTokens: o.overheadTokens ?? null, commitDelayCalls: o.commitDelayCalls ?? 1, ...(o.contextWindow ? { contextWindow: o.contextWindow } : {}), ...(o.includeSubagents === false ? { includeSubagents: false } : {}) }, 'replay');
  // A replay writes only its own rows (replay_run_id): it never excludes a pass of the session.
  recordOwner(db, runId);
  const stopHeartbeat = startHeartbeat(db, runId);
  o.onRunStarted?.({ runId, variantId: variant.id });
  const signal = o.signal ?? new AbortController().signal;
  setMaxListeners(0, signal);
  const counters = newCounters();
  const requestsAtStart = requestMark(summarizer);
  const semaphore = new Semaphore(o.concurrency ?? 4);
  let allTurns: Turn[] | null = null;
  const count = (text: string) => countTokens(text, tokenizer);
  const store = new MemoryVariantStore();
  const summarize = summarizeVia({ db, summarizer, countTokens: count, semaphore, signal, cacheLimit: o.cacheLimit, counters, ladder });
  const started = Date.now();
  let latency = 0;
  const passEvents: Array<{ kind: string; data: Record<string, unknown> }> = [];
  try {
    const live = await runLive({
      prepared,
      metas: source.metas,
      calls: inputs.calls,
      model: inputs.model,
      store,
      commitDelayCalls: o.commitDelayCalls,
      signal,
      work: () => ({ summarizerCalls: counters.summarizerCalls, tokensIn: counters.tokensIn, tokensOut: counters.tokensOut, costUsd: counters.costUsd, latencyMs: latency }),
      // Through the macrotask queue now and then, so a worker reads its cancel message.
      beforeCall: (k) => (k % 256 === 0 ? new Promise<void>((r) => setImmediate(r)) : undefined),
      onProgress: (done, total, firings) => {
        if (done % 64 === 0 || done === total) o.onProgress?.({ runId, variantId: variant.id, done, total, tokens: 0, message: `call ${done} of ${total}, ${firings} firing(s)` });
      },
      context: (end, metas: TurnMeta[], measured, backgroundPending): PassContext => ({
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
        ...measured,
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
        event(kind, data = {}) {
          if (kind !== 'compaction_skipped') passEvents.push({ kind, data: { ...data, call: store.callIndex } });
        },
        checkCancelled() {
          if (signal.aborted) throw Object.assign(new Error('cancelled'), { name: 'AbortError' });
        },
      }),
    });

    const compactedAtCall = new Map<number, number>();
    for (const f of live.firings) for (const id of f.compacted) compactedAtCall.set(id, f.call);
    const events = firingEvents(live.firings);
    const timeline = writeTransaction(db, (): ReplayTimeline => {
      const { ids, rows: stored } = insertReplaySummaries(db, { variantId: variant.id, runId, summaries: store.all(), compactedAtCall });
      // Per-summary ledgers in insertion order (a condensation's children have theirs first), each
      // with the facts its summarizer returned.
      // Their span facts stay in memory (a condensation merges its children's; migration 014).
      const memoryIdOf = new Map([...ids].map(([m, s]) => [s, m]));
      allTurns ??= listTurns(db, o.sessionId);
      const positionOf = new Map(allTurns.map((t) => [t.id, t.position]));
      const ledgerSummaries = new Map([...stored.values()].map((s): [number, LedgerSummary] => [s.id, { sessionId: o.sessionId, text: s.text, firstPosition: s.firstPosition, lastPosition: s.lastPosition, childIds: s.childIds, turnPositions: s.turnIds.map((id) => positionOf.get(id)!) }]));
      const textMemo = new WeakMap<Pick<Turn, 'role' | 'blocks'>, SpanString[]>();
      const ledgerMemory: ReplayLedgerMemory = { spanFacts: new Map(), turns: allTurns, summaries: ledgerSummaries, textMemo };
      for (const id of [...ids.values()].sort((a, b) => a - b)) recordSummaryLedger(db, id, store.get(memoryIdOf.get(id)!)?.facts ?? null, ledgerMemory);
      // Per-firing ledgers: the turns each firing compacted against the whole context right after
      // it. Each costs two context builds and a fact match over the turns so far, so firings are
      // grouped where measuring each would be quadratic (ledgerGroupEnds): one ledger per group,
      // on its last firing, over everything the group compacted.
      const made = new Set<number>();
      const folded = new Set<number>();
      const moment = (state: typeof live.state) => ({ summaries: [...made].flatMap((id) => { const s = stored.get(id); return s ? [{ ...s, compacted: folded.has(id) }] : []; }), state });
      const ledgerCount = memoizedCounter(count, allTurns);
      // A rolling strategy compacts the whole prefix at each firing: its ledgers read it once.
      const factsOf = turnFactStream();
      const closes = ledgerGroupEnds(live.firings.map((f) => f.position), source.metas.length);
      let before: ViewMoment = moment({});
      const rows: Array<Record<string, unknown>> = [];
      events.forEach((e, i) => {
        const f = live.firings[i];
        e.summaryIds = e.summaryIds.map((id) => ids.get(id) ?? id);
        for (const id of f.created) made.add(ids.get(id) ?? id);
        for (const id of f.compacted) folded.add(ids.get(id) ?? id);
        e.ledger = null;
        if (closes[i]) {
          const turnsNow = allTurns!.slice(0, f.position);
          const m = moment(f.state);
          // Its view built here and carried to the next ledger, whose "before" it is.
          const after: ViewMoment = { ...m, built: buildMomentView({ strategy: o.strategy, params: prepared.params, countTokens: ledgerCount }, m, turnsNow) };
          const fl = firingLedger({ strategy: o.strategy, params: prepared.params, turns: turnsNow, before, after, countTokens: ledgerCount, factsOf, textMemo });
          e.ledger = fl ? fl.ledger : null;
          // The next ledger's "before" is this moment, at this call (firing-ledger.ts ViewMoment.end).
          before = { ...after, end: f.position };
        }
        rows.push({ ...e, state: f.state });
      });
      for (const e of passEvents) addRunEvents(db, runId, e.kind, [e.data]);
      addRunEvents(db, runId, 'firing', rows);
      const t = buildTimeline({
        source,
        inputs,
        prepared,
        live,
        runId,
        variantId: variant.id,
        status: 'completed',
        events,
        userPrices,
        contextWindows: readUserContextWindows(db),
        contextWindow: o.contextWindow ?? null,
        summarizerModel: identity.kind === 'openai' ? (identity.model ?? null) : identity.kind,
        includeSubagents: o.includeSubagents,
      });
      // The source tool's own compactions carry their ledger as the baseline.
      const external = listExternalCompactions(db, o.sessionId);
      for (const ev of t.baselines.source.events) {
        const c = external.find((x) => x.boundaryPosition === ev.turn);
        ev.ledger = c ? externalCompactionLedger(db, c) : null;
      }
      saveReplayTimeline(db, runId, t);
      finishRun(db, runId, 'completed', { ...t.totals, summariesRequested: counters.summariesRequested, cacheHits: counters.cacheHits, summarizerCalls: counters.summarizerCalls, ...requestsSince(summarizer, requestsAtStart), durationMs: Date.now() - started });
      return t;
    });
    return { variantId: variant.id, runId, status: 'completed', timeline, error: null };
  } catch (err) {
    const cancelled = signal.aborted;
    const error = cancelled ? 'cancelled' : redactSecrets(err instanceof Error ? err.message : String(err), 2000);
    finishRun(db, runId, cancelled ? 'cancelled' : 'failed', { ...counters, ...requestsSince(summarizer, requestsAtStart), durationMs: Date.now() - started }, error);
    return { variantId: variant.id, runId, status: cancelled ? 'cancelled' : 'failed', timeline: null, error };
  } finally {
    stopHeartbeat();
  }
}
