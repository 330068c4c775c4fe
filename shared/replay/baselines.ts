/**
 * What the model-free baselines (masking, window, forgetting) hide, for the replay.
 * The rules themselves belong to their planners in shared/compaction/ (H2); this file
 * only adapts them to the replay so build.ts stays strategy-agnostic.
 *
 * INTERIM: until shared/compaction/{masking,window,forgetting}.ts export their helpers,
 * nothing is masked (the replay shows the original turns, which is also what the model
 * sees before a first pass). Dropped turns follow VariantState.droppedRanges.
 */
import type { StrategyName, VariantState } from '../compaction/types.js';
import type { ContentBlock, Turn } from '../model/turn.js';

/** turn id -> blocks with old tool results replaced by placeholders (masking). */
export function maskedBlocks(_turns: readonly Turn[], _params: Record<string, number | string | boolean>): Map<number, ContentBlock[]> {
  return new Map();
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
