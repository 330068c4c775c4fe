/**
 * The context window of a model: the most tokens one request may carry (prompt and output
 * together, as each provider states its limit). It is a property of the model, not of a
 * compaction variant: a variant's `tokenBudget` is when the variant compacts, and says
 * nothing about whether the model could have received the prompt. The replay marks every
 * series (a variant, no compaction, the source) whose context exceeds the window of the
 * call's model as infeasible (shared/replay/timeline.ts).
 *
 * - Rows are matched like the price table (prices.ts `matchModelName`: the name, or a listed
 *   name plus a snapshot suffix, after an `anthropic/`, `openai/`, `google/`, `meta-llama/`...
 *   gateway prefix and an Ollama `:tag`).
 * - `[1m]` after a Claude name (Claude Code's spelling of the 1M-context beta) takes the
 *   row's `longContext` figure; a name without it takes the standard window, because the
 *   1M window is opt-in (a beta header) and a transcript does not record that it was asked.
 * - Open models list the window they were trained for; a local server may run them with
 *   less (Ollama's default `num_ctx` is a few thousand tokens): override the window then.
 * - The user's windows (settings `contextWindows`, by model name) and a per-run override
 *   (the CLI's `replay --context-window`) come before the table; an unlisted model takes
 *   `DEFAULT_CONTEXT_WINDOW` and says so (`from: 'default'`).
 */
import { z } from 'zod';
import { matchModelName } from './prices.js';

export interface ModelWindow {
  /** Tokens per request (input + output). */
  tokens: number;
  /** The 1M-context variant's window, where the model has one (`[1m]`). */
  longContext?: number;
  /** ISO date the figure was read. */
  asOf: string;
  /** Where it is stated. */
  source: string;
}

const READ_ON = '2026-12-01';
const ANTHROPIC_MODELS_URL = 'https://docs.anthropic.com/en/docs/about-claude/models/overview';
const OPENAI_MODELS_URL = 'https://platform.openai.com/docs/models';
const GEMINI_MODELS_URL = 'https://ai.google.dev/gemini-api/docs/models';
/** Open models: the window of the published model card (Hugging Face) of each family. */
const MODEL_CARD = 'the model card on huggingface.co';

const row = (tokens: number, source: string, longContext?: number): ModelWindow => ({ tokens, asOf: READ_ON, source, ...(longContext !== undefined ? { longContext } : {}) });
const claude = (longContext?: number) => row(200_000, ANTHROPIC_MODELS_URL, longContext);
const M1 = 1_000_000;

/** When the table does not know the model. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

export const MODEL_CONTEXT_WINDOWS: Readonly<Record<string, ModelWindow>> = {
  // Anthropic: 200k for every current model; Sonnet 4 / 4.5 / 4.6 and Opus 4.6 also offer a
  // 1M-token window (beta, opt-in), written `[1m]` by Claude Code.
  'claude-opus-4-7': claude(M1),
  'claude-opus-4-6': claude(M1),
  'claude-opus-4-5': claude(),
  'claude-opus-4-1': claude(),
  'claude-opus-4': claude(),
  'claude-3-opus': claude(),
  'claude-sonnet-4-6': claude(M1),
  'claude-sonnet-4-5': claude(M1),
  'claude-sonnet-4': claude(M1),
  'claude-3-7-sonnet': claude(),
  'claude-3-5-sonnet': claude(),
  'claude-haiku-4-5': claude(),
  'claude-3-5-haiku': claude(),
  'claude-3-haiku': claude(),
  // OpenAI.
  'gpt-4o': row(128_000, OPENAI_MODELS_URL),
  'gpt-4o-mini': row(128_000, OPENAI_MODELS_URL),
  'gpt-4.1': row(1_047_576, OPENAI_MODELS_URL),
  'gpt-4.1-mini': row(1_047_576, OPENAI_MODELS_URL),
  'gpt-4.1-nano': row(1_047_576, OPENAI_MODELS_URL),
  'gpt-5': row(400_000, OPENAI_MODELS_URL),
  'gpt-5-mini': row(400_000, OPENAI_MODELS_URL),
  'gpt-5-nano': row(400_000, OPENAI_MODELS_URL),
  'gpt-5-codex': row(400_000, OPENAI_MODELS_URL),
  'gpt-5.1': row(400_000, OPENAI_MODELS_URL),
  'gpt-5.1-codex': row(400_000, OPENAI_MODELS_URL),
  o1: row(200_000, OPENAI_MODELS_URL),
  'o1-mini': row(128_000, OPENAI_MODELS_URL),
  o3: row(200_000, OPENAI_MODELS_URL),
  'o3-mini': row(200_000, OPENAI_MODELS_URL),
  'o4-mini': row(200_000, OPENAI_MODELS_URL),
  'gpt-4-turbo': row(128_000, OPENAI_MODELS_URL),
  'gpt-3.5-turbo': row(16_385, OPENAI_MODELS_URL),
  // Google.
  'gemini-2.5-pro': row(1_048_576, GEMINI_MODELS_URL),
  'gemini-2.5-flash': row(1_048_576, GEMINI_MODELS_URL),
  'gemini-2.5-flash-lite': row(1_048_576, GEMINI_MODELS_URL),
  'gemini-2.0-flash': row(1_048_576, GEMINI_MODELS_URL),
  'gemini-1.5-pro': row(2_097_152, GEMINI_MODELS_URL),
  'gemini-1.5-flash': row(1_048_576, GEMINI_MODELS_URL),
  // Open models as Ollama / vLLM / OpenRouter name them (trained window).
  'llama-4-maverick': row(1_048_576, MODEL_CARD),
  'llama-4-scout': row(10_485_760, MODEL_CARD),
  'llama-3.3-70b': row(131_072, MODEL_CARD),
  'llama-3.1-405b': row(131_072, MODEL_CARD),
  'llama-3.1-70b': row(131_072, MODEL_CARD),
  'llama-3.1-8b': row(131_072, MODEL_CARD),
  'llama3.3': row(131_072, MODEL_CARD),
  'llama3.1': row(131_072, MODEL_CARD),
  'qwen3-coder': row(262_144, MODEL_CARD),
  qwen3: row(40_960, MODEL_CARD),
  'qwen2.5-coder': row(32_768, MODEL_CARD),
  'qwen2.5': row(32_768, MODEL_CARD),
  'deepseek-v3': row(131_072, MODEL_CARD),
  'deepseek-r1': row(131_072, MODEL_CARD),
  'gpt-oss-120b': row(131_072, MODEL_CARD),
  'gpt-oss-20b': row(131_072, MODEL_CARD),
  'gpt-oss': row(131_072, MODEL_CARD),
  'mistral-large': row(131_072, MODEL_CARD),
  'devstral-small': row(131_072, MODEL_CARD),
  devstral: row(131_072, MODEL_CARD),
  'gemma-3': row(131_072, MODEL_CARD),
  gemma3: row(131_072, MODEL_CARD),
  'kimi-k2': row(131_072, MODEL_CARD),
  'glm-4.6': row(202_752, MODEL_CARD),
};

/** The user's context windows by model name (settings `contextWindows`). */
export const userContextWindowsSchema = z.record(z.string().trim().min(1).max(200), z.number().int().positive().max(100_000_000));
export type UserContextWindows = z.infer<typeof userContextWindowsSchema>;

export interface ResolvedWindow {
  model: string;
  tokens: number;
  /** Where the figure comes from: a per-run override, the user's table, this table, or the default for an unlisted model. */
  from: 'override' | 'user' | 'table' | 'default';
  matched: string | null;
  asOf: string | null;
  source: string | null;
}

/** A gateway prefix (`openrouter`-style `vendor/`) and an Ollama tag (`:70b`) say nothing about the window's row. */
const GATEWAY_PREFIX = /^[a-z0-9-]+\//;
const OLLAMA_TAG = /:[a-z0-9._-]+$/;
const ONE_M = /\[1m\]$/i;

/** The context window of `model`: the override, else the user's, else the table's, else the default. */
export function contextWindowOf(model: string, opts: { override?: number | null; user?: UserContextWindows } = {}): ResolvedWindow {
  if (opts.override != null && opts.override > 0) return { model, tokens: opts.override, from: 'override', matched: null, asOf: null, source: null };
  const oneM = ONE_M.test(model.trim());
  const base = model.trim().replace(ONE_M, '');
  const user = opts.user ? (matchModelName(model, Object.keys(opts.user)) ?? matchModelName(base, Object.keys(opts.user))) : null;
  if (user !== null && opts.user) return { model, tokens: opts.user[user], from: 'user', matched: user, asOf: null, source: null };
  const keys = Object.keys(MODEL_CONTEXT_WINDOWS);
  const candidates = [base, base.replace(GATEWAY_PREFIX, ''), base.replace(GATEWAY_PREFIX, '').replace(OLLAMA_TAG, '')];
  for (const name of candidates) {
    const listed = matchModelName(name, keys);
    if (listed === null) continue;
    const w = MODEL_CONTEXT_WINDOWS[listed];
    return { model, tokens: oneM && w.longContext !== undefined ? w.longContext : w.tokens, from: 'table', matched: listed, asOf: w.asOf, source: w.source };
  }
  return { model, tokens: DEFAULT_CONTEXT_WINDOW, from: 'default', matched: null, asOf: null, source: null };
}
