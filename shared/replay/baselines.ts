/**
 * What the model-free baselines (masking, window, forgetting) hide, for the replay.
 * The rules belong to their planners in shared/strategies/ (masking's
 * `maskToolResults`, the `droppedRanges` the window/forgetting passes write); this file
 * only adapts them to the replay so build.ts stays strategy-agnostic.
 */
import type { StrategyName, VariantState } from '../strategies/types.js';
import type { ContentBlock, Turn } from '../model/turn.js';
import { maskToolResults, maskingSpecs } from '../strategies/masking.js';
import { resolveParams } from '../strategies/params.js';

/**
 * turn id -> blocks with old tool results replaced by placeholders (masking), once the
 * variant's pass has run (state.maskBoundary set); before that the model sees the
 * original turns, as with every other strategy.
 */
export function maskedBlocks(turns: readonly Turn[], state: VariantState, params: Record<string, number | string | boolean>): Map<number, ContentBlock[]> {
  const out = new Map<number, ContentBlock[]>();
  if (state.maskBoundary === undefined) return out;
  const { maskWindow } = resolveParams<{ maskWindow: number }>('masking', maskingSpecs, { maskWindow: params.maskWindow });
  const masked = maskToolResults(turns, maskWindow);
  masked.forEach((t, i) => {
    if (t !== turns[i]) out.set(t.id, t.blocks);
  });
  return out;
}

/**
 * Ids of the turns a window/forgetting variant has dropped: the conversation turns in
 * `state.droppedRanges` (inclusive position ranges written by their passes). System
 * turns inside a range stay: no strategy drops the system prompt.
 */
export function droppedTurnIds(_strategy: Extract<StrategyName, 'window' | 'forgetting'>, turns: readonly Turn[], state: VariantState, _params: Record<string, number | string | boolean>): Set<number> {
  const dropped = new Set<number>();
  const ranges = state.droppedRanges ?? [];
  if (ranges.length === 0) return dropped;
  let r = 0;
  for (const t of turns) {
    while (r < ranges.length && ranges[r][1] < t.position) r++;
    if (r === ranges.length) break;
    if (t.position >= ranges[r][0] && t.role !== 'system') dropped.add(t.id);
  }
  return dropped;
}
