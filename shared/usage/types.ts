/**
 * What a source transcript reports about each model call: the token usage the provider
 * returned (Claude Code `message.usage`, OpenHands `llm_metrics`, OpenAI-style `usage`),
 * the model and the time. One record per model call (a Claude Code message split over
 * several JSONL records, same message id, is ONE call). Stored by the importers
 * (electron/store/migrations/003-*), read by the replay (shared/replay/live.ts) and the
 * cost model (shared/cost/).
 */

/** Usage of one model call as the source reported it. Absent figures are null, not 0. */
export interface ModelCallUsage {
  /** Position of the assistant turn this call produced (the call saw turns [0, position)). */
  position: number;
  turnId: number;
  /** Provider message id where the source has one (Claude Code `message.id`). */
  messageId: string | null;
  model: string | null;
  /** ISO timestamp of the call's response, when the source has it. */
  timestamp: string | null;
  /** Uncached input tokens (Anthropic `input_tokens`; OpenAI `prompt_tokens - cached_tokens`). */
  inputTokens: number | null;
  /** Cache writes at the 5-minute rate (Anthropic `cache_creation.ephemeral_5m_input_tokens`, or the whole `cache_creation_input_tokens` when no split is given). */
  cacheWrite5mTokens: number | null;
  /** Cache writes at the 1-hour rate (Anthropic `cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1hTokens: number | null;
  /** Cache reads (Anthropic `cache_read_input_tokens`; OpenAI `prompt_tokens_details.cached_tokens`). */
  cacheReadTokens: number | null;
  outputTokens: number | null;
  /**
   * The values are known placeholders and must not be trusted (e.g. Claude Code's
   * streaming stubs: input_tokens 0–4 with no cache figures on a long context).
   */
  placeholder: boolean;
}

/** Tokens the call sent (its context): input + cache writes + cache reads; null when unknown or a placeholder. */
export function reportedContext(u: ModelCallUsage): number | null {
  if (u.placeholder || u.inputTokens === null) return null;
  return u.inputTokens + (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0) + (u.cacheReadTokens ?? 0);
}
