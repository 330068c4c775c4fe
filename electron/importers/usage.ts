/**
 * Reading the token usage a source reports per model call. Usage is advisory: a figure
 * of the wrong type (a string, a fraction, a negative number) never fails an import, it
 * is recorded as null; so is a usage that is not an object at all.
 */
import type { ImportedCallUsage } from './types.js';

type Figures = Omit<ImportedCallUsage, 'messageId' | 'model' | 'timestamp'>;

const NO_FIGURES: Figures = { inputTokens: null, cacheWrite5mTokens: null, cacheWrite1hTokens: null, cacheReadTokens: null, outputTokens: null };

/** A token figure: a non-negative whole number SQLite's INTEGER holds exactly (a safe integer: 1e30 is not), else null. */
export function tokenFigure(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

function asObject(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/**
 * Anthropic `usage` (Claude Code `message.usage`): input_tokens, cache_read_input_tokens,
 * output_tokens, and cache writes split by `cache_creation.ephemeral_5m_input_tokens` /
 * `ephemeral_1h_input_tokens` where present, else the whole `cache_creation_input_tokens`
 * counted at the 5-minute rate (the only kind before the split existed).
 */
export function anthropicUsage(raw: unknown): Figures {
  const u = asObject(raw);
  if (!u) return NO_FIGURES;
  const split = asObject(u.cache_creation);
  const write5m = split ? tokenFigure(split.ephemeral_5m_input_tokens) : null;
  const write1h = split ? tokenFigure(split.ephemeral_1h_input_tokens) : null;
  const hasSplit = write5m !== null || write1h !== null;
  return {
    inputTokens: tokenFigure(u.input_tokens),
    cacheWrite5mTokens: hasSplit ? write5m : tokenFigure(u.cache_creation_input_tokens),
    cacheWrite1hTokens: hasSplit ? write1h : null,
    cacheReadTokens: tokenFigure(u.cache_read_input_tokens),
    outputTokens: tokenFigure(u.output_tokens),
  };
}

/** `prompt` minus the parts of it that were cached, or null when it is unknown or smaller. */
function uncached(prompt: number | null, ...parts: Array<number | null>): number | null {
  if (prompt === null) return null;
  const rest = prompt - parts.reduce<number>((s, p) => s + (p ?? 0), 0);
  return rest >= 0 ? rest : null;
}

/**
 * OpenAI-style `usage` (chat completions, also litellm's responses inside OpenHands):
 * `prompt_tokens` is the whole prompt, `prompt_tokens_details.cached_tokens` the cached
 * part of it. litellm adds Anthropic's `cache_creation_input_tokens` (and
 * `cache_read_input_tokens`), also inside `prompt_tokens`: the OpenHands fixture
 * basic_gui_mode has prompt 3,601 = 3,435 read + 160 written + 6 uncached. So input =
 * prompt − reads − writes, and the reported context is `prompt_tokens`.
 */
export function openaiUsage(raw: unknown): Figures {
  const u = asObject(raw);
  if (!u) return NO_FIGURES;
  const prompt = tokenFigure(u.prompt_tokens);
  const details = asObject(u.prompt_tokens_details);
  const read = (details ? tokenFigure(details.cached_tokens) : null) ?? tokenFigure(u.cache_read_input_tokens);
  const write = tokenFigure(u.cache_creation_input_tokens);
  return { inputTokens: uncached(prompt, read, write), cacheWrite5mTokens: write, cacheWrite1hTokens: null, cacheReadTokens: read, outputTokens: tokenFigure(u.completion_tokens) };
}

/**
 * One OpenHands `TokenUsage` (llm_metrics.token_usages[i]): prompt_tokens (whole prompt,
 * litellm's figure), completion_tokens, cache_read_tokens, cache_write_tokens.
 */
export function openhandsTokenUsage(raw: unknown): Figures & { model: string | null; responseId: string | null } {
  const u = asObject(raw);
  if (!u) return { ...NO_FIGURES, model: null, responseId: null };
  const prompt = tokenFigure(u.prompt_tokens);
  const read = tokenFigure(u.cache_read_tokens);
  const write = tokenFigure(u.cache_write_tokens);
  return {
    inputTokens: uncached(prompt, read, write),
    cacheWrite5mTokens: write,
    cacheWrite1hTokens: null,
    cacheReadTokens: read,
    outputTokens: tokenFigure(u.completion_tokens),
    model: typeof u.model === 'string' ? u.model : null,
    responseId: typeof u.response_id === 'string' && u.response_id.length > 0 ? u.response_id : null,
  };
}

/**
 * An assistant chat message that carries its own OpenAI-style `usage` (some exporters write
 * the completion's usage onto the message): the call that produced it. Other messages
 * report no call.
 */
export function openaiMessageUsage(message: Record<string, unknown>): ImportedCallUsage | undefined {
  if (message.role !== 'assistant' || message.usage === undefined) return undefined;
  return {
    messageId: typeof message.id === 'string' ? message.id : null,
    model: typeof message.model === 'string' ? message.model : null,
    timestamp: typeof message.timestamp === 'string' ? message.timestamp : null,
    ...openaiUsage(message.usage),
  };
}

/**
 * OpenHands token usages by response id: the evaluation record's `metrics.token_usages`
 * and every event's `llm_metrics.token_usages` (one entry per LLM call, each naming the
 * litellm response id that the action's `tool_call_metadata.model_response.id` repeats).
 * `accumulated_token_usage` is a running total, not a call, and is not read.
 */
export function openhandsUsagesByResponse(recordMetrics: unknown, events: unknown[]): Map<string, ReturnType<typeof openhandsTokenUsage>> {
  const out = new Map<string, ReturnType<typeof openhandsTokenUsage>>();
  const add = (metrics: unknown): void => {
    const list = asObject(metrics)?.token_usages;
    if (!Array.isArray(list)) return;
    for (const raw of list) {
      const u = openhandsTokenUsage(raw);
      if (u.responseId !== null && !out.has(u.responseId)) out.set(u.responseId, u);
    }
  };
  for (const e of events) add(asObject(e)?.llm_metrics);
  add(recordMetrics);
  return out;
}
