/**
 * Which reported usage is a known placeholder (kept, flagged, never trusted).
 *
 * Claude Code has written streaming stubs whose usage says `input_tokens` 1–4 with no
 * cache figures on calls whose context was tens of thousands of tokens: a call cannot
 * have sent fewer tokens than the transcript it carried, so such a figure on a long
 * transcript is a placeholder, not a measurement. The fixture sessions hold none (their
 * stubs repeat the final input figures and only the output grows); the rule is tested on a
 * hand-made transcript (test/node/usage-import.test.ts).
 */
import type { ModelCallUsage } from './types.js';

/** Largest `input_tokens` a placeholder reports (Claude Code stubs: 0–4). */
export const PLACEHOLDER_MAX_INPUT_TOKENS = 4;
/** Transcript tokens before the call above which a placeholder-sized input cannot be real. */
export const PLACEHOLDER_MIN_TRANSCRIPT_TOKENS = 1000;

type UsageFigures = Pick<ModelCallUsage, 'inputTokens' | 'cacheWrite5mTokens' | 'cacheWrite1hTokens' | 'cacheReadTokens'>;

/**
 * True when the call reports 0–4 input tokens, no cache writes or reads (absent or 0),
 * while the transcript before it is longer than ~1,000 tokens.
 */
export function isPlaceholderUsage(u: UsageFigures, transcriptTokensBefore: number): boolean {
  if (u.inputTokens === null || u.inputTokens > PLACEHOLDER_MAX_INPUT_TOKENS) return false;
  const cached = (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0) + (u.cacheReadTokens ?? 0);
  return cached === 0 && transcriptTokensBefore > PLACEHOLDER_MIN_TRANSCRIPT_TOKENS;
}

/**
 * Below this share of the visible output's tokens, a final `output_tokens` is a streaming
 * snapshot: Claude Code writes a message's records while it streams and the last record of
 * a message id can keep an early figure (6–8 tokens on a summary of thousands). Claude's
 * tokenizer counts more tokens than o200k for the same text, so a real figure is never under
 * half of the o200k count of what the call wrote.
 */
export const OUTPUT_PLACEHOLDER_SHARE = 0.5;
/** Visible outputs shorter than this many tokens are not judged (a short answer's count is noise). */
export const OUTPUT_PLACEHOLDER_MIN_VISIBLE = 50;

/**
 * True when the call's recorded output is under half of the tokens of the text it visibly
 * wrote (`visibleOutputTokens`: the assistant turn's token count): the figure is a floor,
 * not what the provider billed.
 */
export function isOutputPlaceholder(outputTokens: number | null, visibleOutputTokens: number): boolean {
  if (outputTokens === null || visibleOutputTokens < OUTPUT_PLACEHOLDER_MIN_VISIBLE) return false;
  return outputTokens < OUTPUT_PLACEHOLDER_SHARE * visibleOutputTokens;
}
