/**
 * The summarizer contract every pass calls through. Implementations: the extractive
 * (model-free, default) one and the OpenAI-compatible one (electron/summarize/).
 */
import type { FactSet } from '../facts/types.js';

export interface SummarizeItem {
  /** 'turn' items carry a turn's role and text; 'summary' items a child summary's text. */
  kind: 'turn' | 'summary';
  role: 'system' | 'user' | 'assistant' | 'tool' | 'summary';
  text: string;
  /**
   * A summary child's place (condensation input), shown as its label in the depth ≥ 2
   * prompt (shared/summarize/prompts.ts): its depth, the turn positions it covers and the
   * timestamps of its first and last turns. Not part of the cache key (electron/summarize/cache.ts):
   * the same content under other positions is the same summary.
   */
  depth?: number;
  firstPosition?: number;
  lastPosition?: number;
  firstAt?: string | null;
  lastAt?: string | null;
  /**
   * A child summary's facts as structured data (what its summarizer returned, or what was
   * stored with it). Absent: the extractive summarizer reads them back from the text.
   * Not part of the cache key: they are a function of the child's span, like its text.
   */
  facts?: FactSet;
}

export interface SummarizeRequest {
  /** Which prompt to use: leaf and condensed prompts differ. */
  purpose: 'leaf' | 'condensed' | 'rolling' | 'watermark' | 'chunk' | 'digest' | 'codex' | 'claude-code';
  items: SummarizeItem[];
  /** Condensed requests: the depth of the summary to make (1 = merging leaves); picks the depth's prompt. */
  depth?: number;
  /** Earlier summary for continuity (dag leaf prior, rolling summary). */
  priorSummary?: string | null;
  targetTokens: number;
  tier: 'normal' | 'aggressive';
  /**
   * Tokens of the span, as the pass counted its turns (the watermark's span_token_count_in):
   * recorded on the summary cache row, never part of its key nor of the prompt.
   */
  spanTokenCount?: number;
}

export interface SummarizeResult {
  text: string;
  model: string;
  tokensIn?: number;
  tokensOut?: number;
  costUsd?: number;
  /**
   * The facts the summary carries, as structured data beside its text (the extractive
   * summarizer returns them; a model summarizer does not). A condensation merges its
   * children's facts instead of re-reading their text.
   */
  facts?: FactSet;
}

/**
 * The part of an AbortSignal a summarizer reads. shared/ compiles without DOM or Node types
 * (shared/tsconfig.json), so it names the shape instead of the global; a real AbortSignal fits.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
}

export interface Summarizer {
  /** 'extractive' | 'openai' */
  kind: string;
  model: string;
  promptVersion: string;
  summarize(req: SummarizeRequest, signal?: AbortSignalLike): Promise<SummarizeResult>;
  /**
   * HTTP requests this summarizer has made so far, the client's retries included, and how
   * many of them failed (an error status or no answer). Absent for a summarizer that makes
   * none (the extractive one). A run reports the difference over its own course.
   */
  readonly requests?: { made: number; failed: number };
}

/** Requests a summarizer made since `before` (zeros for one that makes none). */
export function requestsSince(s: Pick<Summarizer, 'requests'>, before: { made: number; failed: number }): { requests: number; failedRequests: number } {
  return { requests: (s.requests?.made ?? 0) - before.made, failedRequests: (s.requests?.failed ?? 0) - before.failed };
}
export const requestMark = (s: Pick<Summarizer, 'requests'>): { made: number; failed: number } => ({ made: s.requests?.made ?? 0, failed: s.requests?.failed ?? 0 });
