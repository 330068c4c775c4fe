/**
 * What a strategy's pass receives and returns. The engine (engine.ts) builds the
 * context: it opens the run, resolves the variant, wires the summarizer through the
 * tier ladder and the summary cache, reports progress and honours cancellation.
 * Each strategy's pass (passes/<strategy>.ts) computes its plan with the pure planner
 * from shared/strategies/ and executes it.
 */
import type { DB } from '../store/db.js';
import type { Turn, TurnMeta } from '../../shared/model/turn.js';
import type { ExistingSummary, SummaryTier, VariantState } from '../../shared/strategies/types.js';
import type { SummarizeRequest, Summarizer } from '../../shared/strategies/summarizer.js';
import type { VariantInfo } from '../../shared/contract.js';
import type { TokenizerName } from '../tokenizer.js';

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
}

export interface PassContext {
  db: DB;
  sessionId: number;
  variant: VariantInfo;
  runId: number;
  /** Planner view of every turn (index = position). */
  metas: TurnMeta[];
  /** Full turns by position range [from, to) — read lazily, passes only need spans. */
  readTurns(from: number, to: number): Turn[];
  /** The variant's summaries as planners see them (re-read: passes may have written). */
  readSummaries(): ExistingSummary[];
  /** Summary texts by id. */
  summaryText(id: number): string;
  state: VariantState;
  summarizer: Summarizer;
  tokenizer: TokenizerName;
  concurrency: number;
  signal: AbortSignal;
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
  /** New strategy state to persist on the variant (written in the commit transaction by the pass itself). */
  state?: VariantState;
}

export type PassFn = (ctx: PassContext, params: Record<string, number | string | boolean>) => Promise<PassOutcome>;
