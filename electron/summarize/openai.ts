/**
 * The OpenAI-compatible summarizer: the real `openai` client (6.x) against any server
 * speaking /v1/chat/completions (OpenAI, a local llama.cpp / vLLM / Ollama, the tests'
 * fake server). Retries with backoff on 408/409/429/5xx and connection errors are the
 * client's own (maxRetries; it honours retry-after and retry-after-ms). An empty or
 * malformed answer is an error here; the tier ladder (tiers.ts) decides what follows.
 */
import { holdSecret } from '../held-secrets.js';
import { costUsd, type UserPrices } from '../../shared/cost/prices.js';
import OpenAI from 'openai';
import type { SummarizeRequest, Summarizer, SummarizeResult } from '../../shared/strategies/summarizer.js';
import { buildPrompt, effectiveTemplates, normalizeOverrides, OPENAI_PROMPT_VERSION, openAiPromptVersion, summaryOfAnswer, type PromptOverrides } from '../../shared/summarize/prompts.js';
import { AbortError } from './tiers.js';

export { OPENAI_PROMPT_VERSION };
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** A small, cheap model is the sensible default for summarization. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
/** Per-request timeout (ms) before the client gives up on an attempt and retries. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Retries after the first attempt (the client's default is 2). */
export const DEFAULT_MAX_RETRIES = 3;

/**
 * Cost of one call from the one price table (shared/cost/prices.ts), whatever the endpoint:
 * a model the table does not list costs 0 (a local Ollama / vLLM / llama.cpp model, or a
 * new name until the user sets its price), the same figure the watermark budget spends.
 */
export function callCostUsd(model: string, tokensIn: number, tokensOut: number, userPrices?: UserPrices): number {
  return costUsd(model, tokensIn, tokensOut, userPrices);
}

export interface OpenAiSummarizerOptions {
  baseURL: string;
  model: string;
  /** Required by api.openai.com; local servers usually accept any value. */
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Prices the user set (settings): they override the table and price unlisted models. */
  userPrices?: UserPrices;
  /** Edited prompt templates (shared/summarize/prompts.ts); they change the prompt version. */
  prompts?: PromptOverrides;
}

export interface OpenAiSummarizer extends Summarizer {
  baseURL: string;
  /** The overrides in effect (normalized: defaults dropped). */
  prompts: PromptOverrides;
}

function isOfficialApi(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname.endsWith('openai.com');
  } catch {
    return false;
  }
}

/** Rejects as soon as the signal aborts (the client's retry sleep does not watch it). */
function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new AbortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export function createOpenAiSummarizer(o: OpenAiSummarizerOptions): OpenAiSummarizer {
  if (!o.apiKey && isOfficialApi(o.baseURL)) {
    throw new Error('the openai summarizer needs an API key: set OPENAI_API_KEY or save one in the settings (or use --base-url for a local OpenAI-compatible server)');
  }
  // From now on no text this process writes keeps the key (shared/redact.ts).
  holdSecret(o.apiKey);
  // Every HTTP request the client makes (its retries included) passes through here.
  const requests = { made: 0, failed: 0 };
  const countingFetch: typeof fetch = async (input, init) => {
    requests.made++;
    try {
      const res = await fetch(input, init);
      if (!res.ok) requests.failed++;
      return res;
    } catch (err) {
      requests.failed++;
      throw err;
    }
  };
  const client = new OpenAI({
    baseURL: o.baseURL,
    fetch: countingFetch,
    // Local servers ignore the key, but the client insists on one.
    apiKey: o.apiKey ?? 'not-needed',
    timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: o.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
  const prompts = normalizeOverrides(o.prompts);
  const templates = effectiveTemplates(prompts);
  return {
    kind: 'openai',
    model: o.model,
    baseURL: o.baseURL,
    prompts,
    promptVersion: openAiPromptVersion(prompts),
    requests,
    async summarize(req: SummarizeRequest, signal?: AbortSignal): Promise<SummarizeResult> {
      const prompt = buildPrompt(req, templates);
      const completion: unknown = await abortable(
        client.chat.completions.create(
          {
            model: o.model,
            messages: [
              { role: 'system', content: prompt.system },
              { role: 'user', content: prompt.user },
            ],
            temperature: prompt.temperature,
            max_tokens: prompt.maxTokens,
          },
          { signal },
        ),
        signal,
      );
      // A server that answers 200 with a non-JSON body gives the client a string back.
      const c = completion as Partial<OpenAI.Chat.Completions.ChatCompletion> | string | null | undefined;
      if (typeof c !== 'object' || c === null || !Array.isArray(c.choices)) {
        throw new Error(`malformed response from ${o.baseURL}: ${typeof c === 'string' ? JSON.stringify(c.slice(0, 80)) : 'no choices'}`);
      }
      // An <analysis> step (the Claude Code-style template) is not part of the summary.
      const text = summaryOfAnswer(c.choices[0]?.message?.content ?? '');
      if (text.trim().length === 0) throw new Error(`empty summary from ${o.model}`);
      const tokensIn = c.usage?.prompt_tokens;
      const tokensOut = c.usage?.completion_tokens;
      const model = typeof c.model === 'string' && c.model.length > 0 ? c.model : o.model;
      return { text, model, tokensIn, tokensOut, costUsd: callCostUsd(o.model, tokensIn ?? 0, tokensOut ?? 0, o.userPrices) };
    },
  };
}
