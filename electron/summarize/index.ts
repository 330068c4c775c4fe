/**
 * The summarizer factory: a SummarizerConfig (what the window, the CLI or a stored
 * variant says) becomes a Summarizer. Also the canonical summarizer identity that goes
 * into the variant key, so the window and the CLI find the same variant for the same
 * choice (never the API key).
 */
import type { UserPrices } from '../../shared/cost/prices.js';
import type { Summarizer } from '../../shared/strategies/summarizer.js';
import type { SummarizerConfig } from '../../shared/contract.js';
import { createExtractiveSummarizer, EXTRACTIVE_PROMPT_VERSION } from '../../shared/summarize/extractive.js';
import { normalizeOverrides, openAiPromptVersion, overridesForTemplates, type PromptOverrides } from '../../shared/summarize/prompts.js';
import { defaultFallbackLadder, STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import { createOpenAiSummarizer, DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL, type OpenAiSummarizer, type OpenAiSummarizerOptions } from './openai.js';
import { countTokens, memoizedCounter } from '../tokenizer.js';

/** A summarizer choice plus the secrets and knobs that never enter the variant key. */
export interface SummarizerSetup extends SummarizerConfig {
  /** OpenAI API key; default $OPENAI_API_KEY. */
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Prices the user set in the settings (shared/cost/prices.ts userPricesSchema). */
  userPrices?: UserPrices;
}

/**
 * The config a strategy's variant uses: the openai kind keeps only the overrides of the
 * templates the strategy uses (its definition's `prompts`), so editing one strategy's prompt
 * does not move another's variant; the extractive kind uses no prompt and keeps none.
 */
export function configForStrategy<C extends SummarizerConfig>(config: C | undefined, strategy: StrategyName): C | undefined {
  if (!config) return config;
  const { prompts: all, fallbackLadder: ladders, ...rest } = config;
  const prompts = rest.kind === 'openai' ? overridesForTemplates(all, STRATEGY_DEFINITIONS[strategy].prompts ?? []) : {};
  // The ladder choice of this strategy only, and only where it departs from its design's default:
  // a variant made before the option existed keeps its key.
  const ladder = ladders?.[strategy];
  const fallbackLadder = ladder !== undefined && ladder !== defaultFallbackLadder(strategy) ? { fallbackLadder: { [strategy]: ladder } } : {};
  return { ...rest, ...(Object.keys(prompts).length > 0 ? { prompts } : {}), ...fallbackLadder } as C;
}

/** Whether a strategy's summaries go through the fallback ladder under this config (the variant's choice, else the design's default). */
export function fallbackLadderOf(config: SummarizerConfig | undefined, strategy: StrategyName): boolean {
  return config?.fallbackLadder?.[strategy] ?? defaultFallbackLadder(strategy);
}

/** The overrides a config carries, normalized (empty for extractive). */
export function promptOverridesOf(config: SummarizerConfig | undefined): PromptOverrides {
  return (config?.kind ?? 'extractive') === 'openai' ? normalizeOverrides(config?.prompts) : {};
}

/** The identity stored in the variant key: extractive has no model or URL; openai gets its defaults filled. Never the prompts (their hash is the prompt version). */
export function summarizerIdentity(config: SummarizerConfig | undefined): SummarizerConfig {
  const kind = config?.kind ?? 'extractive';
  // A ladder choice (configForStrategy keeps only one that departs from the default) changes what is written.
  const ladder = config?.fallbackLadder && Object.keys(config.fallbackLadder).length > 0 ? { fallbackLadder: config.fallbackLadder } : {};
  switch (kind) {
    case 'extractive':
      return { kind: 'extractive', ...ladder };
    case 'openai':
      return { kind: 'openai', baseURL: config?.baseURL ?? DEFAULT_OPENAI_BASE_URL, model: config?.model ?? DEFAULT_OPENAI_MODEL, ...ladder };
    default: {
      const _exhaustive: never = kind;
      return _exhaustive;
    }
  }
}

/** Identity of an already built summarizer (tests and benchmarks pass instances). */
export function identityOfSummarizer(s: Summarizer, setup?: SummarizerConfig): SummarizerConfig {
  if (setup) return summarizerIdentity(setup);
  if (s.kind === 'extractive') return { kind: 'extractive' };
  const baseURL = (s as Partial<OpenAiSummarizer>).baseURL;
  return { kind: 'openai', model: s.model, ...(baseURL ? { baseURL } : {}) };
}

export function promptVersionOf(config: SummarizerConfig | undefined): string {
  return (config?.kind ?? 'extractive') === 'openai' ? openAiPromptVersion(promptOverridesOf(config)) : EXTRACTIVE_PROMPT_VERSION;
}

export function createSummarizer(setup: SummarizerSetup | undefined, env: NodeJS.ProcessEnv = process.env): Summarizer {
  const id = summarizerIdentity(setup);
  switch (id.kind) {
    case 'extractive':
      // The real tokenizer (o200k, the default) costs each line and checks each summary against its
      // target; one summarizer serves one run, and its counts are remembered for it.
      return createExtractiveSummarizer({ countTokens: memoizedCounter((text) => countTokens(text)) });
    case 'openai': {
      const opts: OpenAiSummarizerOptions = {
        baseURL: id.baseURL!,
        model: id.model!,
        apiKey: setup?.apiKey ?? env.OPENAI_API_KEY,
        timeoutMs: setup?.timeoutMs,
        maxRetries: setup?.maxRetries,
        userPrices: setup?.userPrices,
        prompts: promptOverridesOf(setup),
      };
      return createOpenAiSummarizer(opts);
    }
    default: {
      const _exhaustive: never = id.kind;
      return _exhaustive;
    }
  }
}

export function isSummarizer(x: unknown): x is Summarizer {
  return typeof x === 'object' && x !== null && typeof (x as Summarizer).summarize === 'function';
}
