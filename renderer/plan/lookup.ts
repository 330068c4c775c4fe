/**
 * Per-row questions the turn list asks of a plan and of the variant's summaries
 * ("which chunk is this turn in?", "which summary covers it?", "is there a boundary
 * before it?"). Answered by binary search over sorted ranges so that only the ~40 visible
 * rows cost anything, however many turns or spans there are.
 */
import type { ExistingSummary, Plan, PlanBoundary, PlanSpan } from '../../shared/strategies/types.js';

/**
 * Boundaries that mark a protected tail, most specific first. The first one a plan has is
 * drawn as THE protected-tail boundary (testid `fresh-tail-boundary`): dag's fresh tail,
 * watermark's preserved tail, two-line's / window's / forgetting's kept window, masking's
 * window, rolling's pointer after the call.
 */
export const PROTECTED_BOUNDARY_KINDS: ReadonlyArray<PlanBoundary['kind']> = ['fresh-tail', 'preserved-tail', 'kept-window', 'mask-window', 'pointer', 'watermark'];

export function protectedBoundary(plan: Plan | null): PlanBoundary | null {
  if (!plan) return null;
  for (const kind of PROTECTED_BOUNDARY_KINDS) {
    // Several of one kind (window's kept head and kept tail, rolling's pointer now and
    // after the call): the tail is the last one.
    let found: PlanBoundary | null = null;
    for (const b of plan.boundaries) if (b.kind === kind && (!found || b.position > found.position)) found = b;
    if (found) return found;
  }
  return null;
}

/** Boundaries grouped by the position of the turn they precede. */
export function boundariesByPosition(plan: Plan | null): Map<number, PlanBoundary[]> {
  const map = new Map<number, PlanBoundary[]>();
  if (!plan) return map;
  for (const b of plan.boundaries) {
    const list = map.get(b.position);
    if (list) list.push(b);
    else map.set(b.position, [b]);
  }
  return map;
}

export interface Range {
  firstPosition: number;
  lastPosition: number;
}

/**
 * Ranges sorted by first position. Planners emit spans in order, so this is usually one
 * O(n) check; otherwise a sorted copy (the plan's own arrays are never touched).
 */
export function sortedRanges<T extends Range>(ranges: readonly T[]): readonly T[] {
  let sorted = true;
  for (let i = 1; i < ranges.length && sorted; i++) sorted = ranges[i - 1].firstPosition <= ranges[i].firstPosition;
  return sorted ? ranges : [...ranges].sort((a, b) => a.firstPosition - b.firstPosition || a.lastPosition - b.lastPosition);
}

/** Index of the range containing `position` in ranges sorted by firstPosition (non-overlapping), or -1. */
export function rangeIndexAt(sorted: readonly Range[], position: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].firstPosition <= position) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found >= 0 && sorted[found].lastPosition >= position) return found;
  return -1;
}

/** Summaries that cover turns directly (leaves, rolling, watermark, digests, chunks), sorted. */
export function coveringSummaries(summaries: readonly ExistingSummary[] | undefined): readonly ExistingSummary[] {
  if (!summaries) return [];
  return sortedRanges(summaries.filter((s) => s.childIds.length === 0 && s.lastPosition >= s.firstPosition));
}

/** Spans that summarize (not masking or dropping), sorted: these are the plan's chunks. */
export function chunkSpans(plan: Plan | null): readonly PlanSpan[] {
  if (!plan) return [];
  return sortedRanges(plan.spans);
}
