/**
 * What a strategy's pass receives and returns. Passes are pure of I/O: everything they
 * read or write goes through the context, so the SAME pass runs
 * - for real in the engine (electron/engine/engine.ts: a SQLite-backed VariantStore,
 *   the summarizer behind cache + tier ladder + semaphore),
 * - in the live replay (shared/replay/live.ts: an in-memory store, the same summarizer),
 * - in the window's projected timeline (an in-memory store and a projecting summarizer
 *   that returns summaries of their target size without calling anything).
 * Each pass (shared/passes/<strategy>.ts) computes its plan with the strategy's pure
 * planner (shared/strategies/<strategy>.ts) and executes it.
 */
import type { ContextMeasure, ReportedContext } from '../usage/measure.js';
import type { Turn, TurnMeta } from '../model/turn.js';
import type { ExistingSummary, SummaryKind, SummaryTier, VariantState } from '../strategies/types.js';
import type { AbortSignalLike, SummarizeRequest, Summarizer } from '../strategies/summarizer.js';
import type { VariantInfo } from '../contract.js';
import type { FactSet } from '../facts/types.js';

export interface TieredSummary {
  text: string;
  tier: SummaryTier;
  model: string;
  tokenCount: number;
  cacheKey: string;
  cacheHit: boolean;
  /** Summarizer calls actually made for this summary (0 on a cache hit). */
  calls: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  latencyMs: number;
  /** The summary's facts when its summarizer returned them (absent on a cache hit and for model summaries). */
  facts?: FactSet;
}

/** A summary a pass writes (the store adds the variant, the run and, in a replay, the call). */
export interface NewSummary {
  kind: SummaryKind;
  depth: number;
  text: string;
  tokenCount: number;
  tier: SummaryTier;
  model: string;
  promptVersion: string;
  cacheKey: string | null;
  cacheHit: boolean;
  firstPosition: number;
  lastPosition: number;
  /** Leaf-like summaries cover turns; condensed ones cover child summaries. */
  turnIds?: number[];
  childSummaryIds?: number[];
  /** The facts the summary carries (its summarizer's), kept beside its text for later condensations. */
  facts?: FactSet;
}

/** What a pass may do inside its commit: re-read, then write. All or nothing. */
export interface VariantWriter {
  summaries(): ExistingSummary[];
  state(): VariantState;
  insertSummary(s: NewSummary): number;
  markCompacted(ids: readonly number[]): void;
  setState(state: VariantState): void;
}

/** The variant's summaries and state as a pass sees them. */
export interface VariantStore {
  summaries(): ExistingSummary[];
  summaryText(id: number): string;
  /** The facts stored with a summary, or null (older rows, model summaries): the summarizer then reads them from the text. */
  summaryFacts?(id: number): FactSet | null;
  state(): VariantState;
  /**
   * Runs `fn` atomically: in SQLite one BEGIN IMMEDIATE transaction under the session's
   * write lock (electron/engine/variant-store.ts); in memory, directly. A throw writes nothing.
   */
  commit<T>(fn: (w: VariantWriter) => T): Promise<T>;
}

export interface PassContext {
  sessionId: number;
  variant: Pick<VariantInfo, 'id' | 'summarizer'>;
  /** Planner view of every turn the pass may see (index = position); in a replay, the turns before the call. */
  metas: TurnMeta[];
  /** Full turns by position range [from, to) — read lazily, passes only need spans. */
  readTurns(from: number, to: number): Turn[];
  /** The variant's summaries and state; the only way a pass writes. */
  store: VariantStore;
  /** The variant's state when the pass started. */
  state: VariantState;
  summarizer: Pick<Summarizer, 'promptVersion'>;
  concurrency: number;
  signal: AbortSignalLike;
  /**
   * True in the window's projected timeline: summaries are stand-ins of their target
   * size (no text to validate); passes skip checks that need real text.
   */
  projected?: boolean;
  /** The variant's context measure, resolved for the session (shared/usage/measure.ts); absent: the transcript measure. */
  measure?: ContextMeasure;
  /** The source's reported context for the call the pass runs before (used while the view is that transcript). */
  reported?: ReportedContext | null;
  /**
   * Set in the live replay (shared/replay/live.ts): a pass whose design lands work later
   * (two-line's background pass) returns it as `deferred` instead of committing now.
   */
  live?: { backgroundPending: boolean };
  /**
   * Summarize through the tier ladder (normal → aggressive → fallback) and the
   * sha256-keyed summary cache. Never returns empty text or the source verbatim.
   * `allowFallback: false` makes a failure of every model tier throw instead
   * (watermark needs to see the failure to choose truncation).
   */
  summarize(req: Omit<SummarizeRequest, 'tier'>, opts?: { allowFallback?: boolean }): Promise<TieredSummary>;
  countTokens(text: string): number;
  progress(done: number, total: number, tokens: number, message?: string): void;
  event(kind: string, data?: Record<string, unknown>): void;
  /** Throws AbortError if cancelled; call between steps. */
  checkCancelled(): void;
}

export interface PassOutcome {
  /** 'skipped' when the trigger said no (the reason goes in stats.reason). */
  status: 'completed' | 'skipped';
  /** Strategy-specific stats (dag: leafSummariesCreated, condensedSummariesCreated, turnsCompacted, tiersUsed...). */
  stats: Record<string, unknown>;
  /** New strategy state (already written by the pass in its commit). */
  state?: VariantState;
  /**
   * Live replay: the pass would have scheduled background work, but earlier work is still
   * pending (two-line's "one task per conversation"): the loop keeps ONE follow-up mark and
   * runs the pass again once, at the call where the pending work lands.
   */
  followUp?: boolean;
  /** Live replay only: work summarized now whose commit lands some model calls later. */
  deferred?: { commit(at: PassContext): Promise<PassOutcome> };
}

/**
 * A strategy's pass. `params` are already resolved against the strategy's specs (once, by
 * `prepareStrategy`); `force` runs it even when the trigger says no (the engine's "compact
 * now"), otherwise it compacts only if needed.
 */
export type PassFn = (ctx: PassContext, params: Readonly<Record<string, number>>, opts?: { force?: boolean }) => Promise<PassOutcome>;
