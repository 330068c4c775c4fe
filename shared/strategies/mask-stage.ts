/**
 * Observation masking as an optional FIRST STAGE of the summarizing strategies (dag,
 * rolling, watermark, two-line), as in OpenHands' condenser pipelines: before the
 * strategy plans or summarizes, tool results older than the last `preMaskWindow` tool
 * cycles are replaced by masking's placeholder. The strategy then plans on the masked
 * token counts, summarizes masked turns, and the replay shows them masked.
 *
 * `preMaskWindow` = -1 (∞, the default) turns the stage off. The rule is the masking
 * strategy's own (`maskBoundaryOf`, `maskToolResults` in masking.ts), so a variant with
 * the stage masks exactly what the masking baseline with the same window masks.
 */
import type { ParamSpec } from './params.js';
import { MASK_PLACEHOLDER_TOKENS, maskBoundaryOf, maskPlaceholder, maskToolResults } from './masking.js';
import type { Turn, TurnMeta } from '../model/turn.js';

export const PRE_MASK_OFF = -1;

export const preMaskSpec: ParamSpec = {
  name: 'preMaskWindow',
  label: 'Mask first',
  default: PRE_MASK_OFF,
  min: 0,
  max: null,
  sliderMax: 100,
  step: 1,
  kind: 'int',
  unit: 'tool cycles',
  unlimitedValue: PRE_MASK_OFF,
  unlimitedLabel: 'off',
  doc: 'Optional first stage: mask tool results older than the last N tool cycles (the masking baseline, default window there 10) before this strategy plans and summarizes. ∞ (the default) = off.',
};

/** The stage's window from resolved params, or null when the stage is off or absent. */
export function preMaskWindowOf(params: Record<string, unknown>): number | null {
  const w = params.preMaskWindow;
  return typeof w === 'number' && w >= 0 ? w : null;
}

/**
 * Planner view after the stage: result turns that answer a call older than the mask
 * boundary count as one placeholder (the masking planner's estimate; the replay counts
 * the real placeholder text). Never mutates; unchanged turns are the same objects.
 */
export function maskedMetas(turns: readonly TurnMeta[], window: number): TurnMeta[] {
  const boundary = maskBoundaryOf(turns, window);
  if (boundary === null) return turns.slice();
  const placeholderChars = maskPlaceholder('tool', 0).length;
  return turns.map((t) =>
    t.cycleStart < t.position && t.cycleStart < boundary
      ? { ...t, tokenCount: Math.min(t.tokenCount, MASK_PLACEHOLDER_TOKENS), charCount: Math.min(t.charCount, placeholderChars) }
      : t,
  );
}

/** The planner view after the pre-stages a variant's parameters ask for (the same objects when none). */
export function stageMetas(params: Record<string, unknown>, turns: readonly TurnMeta[]): readonly TurnMeta[] {
  const w = preMaskWindowOf(params);
  return w === null ? turns : maskedMetas(turns, w);
}

/** The turns after the pre-stages (what the summarizer reads and the replay shows); the same array when none. */
export function stageTurns<T extends Turn>(params: Record<string, unknown>, turns: readonly T[], countTokens?: (text: string) => number): readonly Turn[] {
  const w = preMaskWindowOf(params);
  return w === null ? turns : maskToolResults(turns, w, countTokens);
}
