/**
 * Strategy `claude-code`: Claude Code's automatic compaction, on the rule of
 * shared/strategies/native.ts. Claude Code's source is not public (its npm package ships
 * minified code), so this is its documented and observed behaviour (docs/strategies.md):
 * - trigger: the reported context reaches the effective window (the window less the output
 *   reserved for the summary) less a buffer: 200,000 − 20,000 − 13,000 = 167,000, the ~167k
 *   line at which the fixture session's automatic compaction fired (`compact_boundary`,
 *   `preTokens` 167,094);
 * - one summary of the whole history, asked with the compaction prompt its compaction agent
 *   received in that session (the `claude-code` prompt template: analysis, then nine sections),
 *   and shown after the sentence Claude Code opens its continuation message with;
 * - nothing of the old history stays verbatim (no user messages kept): what Claude Code
 *   re-attaches after compacting (recently read files, the todo list) is not modelled.
 */
import type { ParamSpec } from './params.js';
import { contextMeasureSpec } from './measure-spec.js';
import type { StrategyRules } from './strategy.js';
import type { Plan, PlanInput } from './types.js';
import { nativeCandidates, nativeVisibleTokens, planNative, type NativeRule } from './native.js';
import { formatCount } from './spans.js';
import { measureChoiceOf } from '../usage/measure.js';

export type ClaudeCodeParams = {
  contextWindow: number;
  reservedSummaryTokens: number;
  bufferTokens: number;
  summaryMaxTokens: number;
  contextMeasure: number;
};

/** How Claude Code opens the user message that carries the summary (the fixture session's, after its compact_boundary). */
export const CLAUDE_CODE_SUMMARY_PREFIX = 'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.';

export const claudeCodeSpecs: readonly ParamSpec[] = [
  { name: 'contextWindow', label: 'Context window', default: 200000, min: 1000, max: null, sliderMax: 1000000, step: 1000, kind: 'int', unit: 'tokens', doc: "The model's context window. Default 200,000: the Claude models' standard window (Anthropic's models overview)." },
  { name: 'reservedSummaryTokens', label: 'Reserved summary output', default: 20000, min: 0, max: null, sliderMax: 64000, step: 1000, kind: 'int', unit: 'tokens', doc: 'Output reserved for the summary, taken off the window to give the effective window. Default 20,000 (not in any public source: with the buffer it reproduces the ~167k line the fixture session fired at, docs/strategies.md).' },
  { name: 'bufferTokens', label: 'Auto-compact buffer', default: 13000, min: 0, max: null, sliderMax: 64000, step: 1000, kind: 'int', unit: 'tokens', doc: 'Buffer below the effective window at which auto-compact fires. Default 13,000 (as the reserved output: 200,000 − 20,000 − 13,000 = 167,000, the line the fixture session fired at with preTokens 167,094).' },
  { name: 'summaryMaxTokens', label: 'Summary size', default: 4000, min: 64, max: null, sliderMax: 20000, step: 100, kind: 'int', unit: 'tokens', doc: "Target size of the summary. Default 4,000: the fixture session's compaction summary is 14,518 characters (~3,600 tokens); the reserved output caps it." },
  contextMeasureSpec,
];

/** Claude Code's line: the effective window (window − reserved summary output) less the buffer. */
export function claudeCodeThreshold(p: Pick<ClaudeCodeParams, 'contextWindow' | 'reservedSummaryTokens' | 'bufferTokens'>): number {
  return Math.max(0, p.contextWindow - p.reservedSummaryTokens - p.bufferTokens);
}

export const claudeCodeRule: NativeRule<ClaudeCodeParams> = {
  strategy: 'claude-code',
  threshold: claudeCodeThreshold,
  keptUserTokens: () => 0,
  lineLabel: (p) => `auto-compact line ${formatCount(claudeCodeThreshold(p))} (window ${formatCount(p.contextWindow)} − ${formatCount(p.reservedSummaryTokens)} reserved − ${formatCount(p.bufferTokens)} buffer)`,
};

export function planClaudeCode(input: PlanInput<ClaudeCodeParams>): Plan<ClaudeCodeParams> {
  return planNative(claudeCodeRule, input);
}

export const claudeCodeStrategy: StrategyRules<ClaudeCodeParams> = {
  name: 'claude-code',
  label: 'Claude Code',
  description:
    "Claude Code's automatic compaction: when the context reaches the window less the reserved summary output and a buffer (167,000 of 200,000), the whole history becomes one summary written with Claude Code's own nine-section compaction prompt. Documented and observed behaviour (its source is not public).",
  specs: claudeCodeSpecs,
  prompts: ['claude-code'],
  plan: planClaudeCode,
  view: (input) => nativeCandidates(input, 0, (text) => `${CLAUDE_CODE_SUMMARY_PREFIX}\n\n${text}`),
  live: {
    visible: (input) => nativeVisibleTokens(input),
    mayFire: (m, p) => m.contextTokens >= claudeCodeThreshold(p),
    lines: (p) => [
      { label: `auto-compact line (context, ${measureChoiceOf(p)})`, tokens: claudeCodeThreshold(p) },
      { label: 'context window', tokens: p.contextWindow },
    ],
  },
};
