/**
 * Strategy `codex`: Codex CLI's automatic compaction (openai/codex, codex-rs; files and
 * commits in docs/strategies.md), on the rule of shared/strategies/native.ts:
 * - trigger: the context reaches `auto_compact_token_limit`, which is the configured
 *   `model_auto_compact_token_limit` capped at 90% of the model's context window, or that
 *   90% when unset (`ModelInfo::auto_compact_token_limit`, codex-rs/protocol/src/openai_models.rs);
 * - one summary of the whole history, asked with Codex's summarization prompt
 *   (templates/compact/prompt.md: the `codex` prompt template) and shown to the model after
 *   Codex's summary prefix (templates/compact/summary_prefix.md);
 * - kept verbatim: the most recent user messages up to COMPACT_USER_MESSAGE_MAX_TOKENS =
 *   20,000 tokens, newest first, the first one over the budget truncated
 *   (`build_compacted_history_with_limit`, codex-rs/core/src/compact.rs).
 */
import type { ParamSpec } from './params.js';
import { contextMeasureSpec } from './measure-spec.js';
import type { StrategyRules } from './strategy.js';
import type { Plan, PlanInput } from './types.js';
import { nativeCandidates, nativeVisibleTokens, planNative, type NativeRule } from './native.js';
import { formatCount } from './spans.js';
import { measureChoiceOf } from '../usage/measure.js';

export type CodexParams = {
  contextWindow: number;
  autoCompactTokenLimit: number;
  userMessageMaxTokens: number;
  summaryMaxTokens: number;
  contextMeasure: number;
};

/** Codex's summary prefix (codex-rs/core/templates/compact/summary_prefix.md), before the summary in the user message that replaces the history. */
export const CODEX_SUMMARY_PREFIX =
  'You are resuming an in-progress task after context compaction. Another language model produced a handoff summary. Treat the summary as authoritative for what is already done. Continue from the "Next steps" for the active task; do not re-open completed tasks or audit prior work unless the user explicitly asked. You also have access to the state of the tools that were used by that language model. Here is the summary:\n';

export const codexSpecs: readonly ParamSpec[] = [
  { name: 'contextWindow', label: 'Context window', default: 272000, min: 1000, max: null, sliderMax: 1000000, step: 1000, kind: 'int', unit: 'tokens', doc: "The model's context window. Default 272,000: the context_window of Codex's fallback model metadata (model_info_from_slug, codex-rs/models-manager/src/model_info.rs)." },
  { name: 'autoCompactTokenLimit', label: 'model_auto_compact_token_limit', default: 0, min: 0, max: null, sliderMax: 1000000, step: 1000, kind: 'int', unit: 'tokens', unlimitedValue: 0, unlimitedLabel: 'unset (90% of the window)', doc: 'Codex\'s model_auto_compact_token_limit: the context at which it compacts, capped at 90% of the window. Default 0 = unset: 90% of the window (ModelInfo::auto_compact_token_limit, codex-rs/protocol/src/openai_models.rs).' },
  { name: 'userMessageMaxTokens', label: 'Kept user messages', default: 20000, min: 0, max: null, sliderMax: 100000, step: 1000, kind: 'int', unit: 'tokens', doc: 'Budget of the recent user messages kept verbatim after a compaction, newest first, the first over the budget truncated. Default 20,000: COMPACT_USER_MESSAGE_MAX_TOKENS (codex-rs/core/src/compact.rs).' },
  { name: 'summaryMaxTokens', label: 'Summary size', default: 2000, min: 64, max: null, sliderMax: 16000, step: 100, kind: 'int', unit: 'tokens', doc: 'Target size of the summary. Codex sets none (its prompt asks to be concise); 2,000 is the size the app\'s other single-summary strategies use.' },
  contextMeasureSpec,
];

/** Codex's line: min(configured limit, 90% of the window), or the 90% when unset. */
export function codexThreshold(p: Pick<CodexParams, 'contextWindow' | 'autoCompactTokenLimit'>): number {
  const contextLimit = Math.floor((p.contextWindow * 9) / 10);
  return p.autoCompactTokenLimit > 0 ? Math.min(p.autoCompactTokenLimit, contextLimit) : contextLimit;
}

export const codexRule: NativeRule<CodexParams> = {
  strategy: 'codex',
  threshold: codexThreshold,
  keptUserTokens: (p) => p.userMessageMaxTokens,
  lineLabel: (p) => `auto_compact_token_limit ${formatCount(codexThreshold(p))}${p.autoCompactTokenLimit > 0 && p.autoCompactTokenLimit > codexThreshold(p) ? ' (capped at 90% of the window)' : ''}`,
};

export function planCodex(input: PlanInput<CodexParams>): Plan<CodexParams> {
  return planNative(codexRule, input);
}

export const codexStrategy: StrategyRules<CodexParams> = {
  name: 'codex',
  label: 'Codex CLI',
  description:
    "Codex CLI's automatic compaction: when the context reaches model_auto_compact_token_limit (90% of the window when unset, never more), the whole history becomes one handoff summary written with Codex's own prompt; the most recent user messages (up to 20,000 tokens) stay verbatim before it. From openai/codex's source.",
  specs: codexSpecs,
  prompts: ['codex'],
  plan: planCodex,
  view: (input) => nativeCandidates(input, Number(input.params.userMessageMaxTokens ?? 20000), (text) => `${CODEX_SUMMARY_PREFIX}\n${text}`),
  live: {
    visible: (input) => nativeVisibleTokens(input),
    // The planner compares the same measured context with the same line: exact, no false negatives.
    mayFire: (m, p) => m.contextTokens >= codexThreshold(p),
    lines: (p) => [
      { label: `auto_compact_token_limit (context, ${measureChoiceOf(p)})`, tokens: codexThreshold(p) },
      { label: 'context window', tokens: p.contextWindow },
    ],
  },
};
