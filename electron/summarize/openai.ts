/**
 * The OpenAI-compatible summarizer: the real `openai` client (6.x) against any server
 * speaking /v1/chat/completions (OpenAI, a local llama.cpp / vLLM / Ollama, the tests'
 * fake server). Retries with backoff on 408/409/429/5xx and connection errors are the
 * client's own (maxRetries; it honours retry-after and retry-after-ms). An empty or
 * malformed answer is an error here; the tier ladder (tiers.ts) decides what follows.
 */
import OpenAI from 'openai';
import type { SummarizeRequest, Summarizer, SummarizeResult } from '../../shared/compaction/summarizer.js';
import { buildPrompt, OPENAI_PROMPT_VERSION } from './prompts.js';
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
 * USD per million tokens (input, output), from OpenAI's public price list; models not
 * listed cost 0 (local servers). Used for cost stats and the watermark cost budget.
 */
export const PRICE_USD_PER_MTOK: Record<string, { input: number; output: number }> = {
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
};

export function costUsd(model: string, tokensIn: number, tokensOut: number): number {
  const price = PRICE_USD_PER_MTOK[model];
  return price ? (tokensIn * price.input + tokensOut * price.output) / 1_000_000 : 0;
}

export interface OpenAiSummarizerOptions {
  baseURL: string;
  model: string;
  /** Required by api.openai.com; local servers usually accept any value. */
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
}

export interface OpenAiSummarizer extends Summarizer {
  baseURL: string;
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
  const client = new OpenAI({
    baseURL: o.baseURL,
    // Local servers ignore the key, but the client insists on one.
    apiKey: o.apiKey ?? 'not-needed',
    timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: o.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
  return {
    kind: 'openai',
    model: o.model,
    baseURL: o.baseURL,
    promptVersion: OPENAI_PROMPT_VERSION,
    async summarize(req: SummarizeRequest, signal?: AbortSignal): Promise<SummarizeResult> {
      const prompt = buildPrompt(req);
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
      const text = c.choices[0]?.message?.content ?? '';
      if (text.trim().length === 0) throw new Error(`empty summary from ${o.model}`);
      const tokensIn = c.usage?.prompt_tokens;
      const tokensOut = c.usage?.completion_tokens;
      const model = typeof c.model === 'string' && c.model.length > 0 ? c.model : o.model;
      return { text, model, tokensIn, tokensOut, costUsd: costUsd(o.model, tokensIn ?? 0, tokensOut ?? 0) };
    },
  };
}
