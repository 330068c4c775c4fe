/**
 * References of the model-free baselines, each evaluated at every call:
 * - `masking` (observation masking; "The Complexity Trap", 2025): whenever a tool result has
 *   come in since it last looked, tool results answering a call older than the last
 *   maskWindow answered calls become placeholders (MASK_PLACEHOLDER_TOKENS each, never more
 *   than the result itself).
 * - `window` (OpenHands' recent-events condenser): with more than keepFirst + maxTurns
 *   conversation turns in view, keep the first keepFirst and the last maxTurns (the head's
 *   end moved later, the tail's start earlier, to safe cuts) and drop the middle.
 * - `forgetting` (OpenHands' amortized forgetting): with more than maxSize conversation turns
 *   in view (those not dropped before), keep the view's first keepFirst and its last
 *   maxSize/2 − keepFirst (safe cuts as above) and forget the rest, merged into what was dropped.
 */
import { MASK_PLACEHOLDER_TOKENS, type MaskingParams } from '../../strategies/masking.js';
import type { WindowParams } from '../../strategies/window.js';
import type { ForgettingParams } from '../../strategies/forgetting.js';
import { convCount, convEdges, convPosition, inRanges, isConv, safeAtOrAfter, safeAtOrBefore, type RefFiring, type RefResult, type RefSession } from './common.js';

const isResult = (s: RefSession, q: number) => s.metas[q].cycleStart < s.metas[q].position;

export function referenceMasking(s: RefSession, p: MaskingParams): RefResult {
  let boundary: number | null = null;
  let resultsSeen = 0;
  const views: number[] = [];
  const firings: RefFiring[] = [];
  const masked = (end: number, b: number) => {
    let count = 0;
    let tokens = 0;
    for (let q = 0; q < end; q++) {
      if (!isResult(s, q) || s.metas[q].cycleStart >= b) continue;
      count++;
      tokens += s.metas[q].tokenCount;
    }
    return { count, tokens };
  };
  const view = (end: number) => {
    let v = 0;
    for (let q = 0; q < end; q++) v += s.metas[q].tokenCount;
    if (boundary === null) return v;
    const m = masked(end, boundary);
    return v - m.tokens + Math.min(m.tokens, m.count * MASK_PLACEHOLDER_TOKENS);
  };
  for (let k = 0; k < s.calls.length; k++) {
    const end = s.calls[k].position;
    let results = 0;
    for (let q = 0; q < end; q++) if (isResult(s, q)) results++;
    if (results > resultsSeen) {
      resultsSeen = results;
      // The calls answered so far (a call is the position a result's cycle starts at).
      const calls = [...new Set(Array.from({ length: end }, (_, q) => q).filter((q) => isResult(s, q)).map((q) => s.metas[q].cycleStart))].sort((a, b) => a - b);
      if (calls.length > p.maskWindow) {
        const b = p.maskWindow <= 0 ? end : calls[calls.length - p.maskWindow];
        if (masked(end, b).count > 0) {
          boundary = b;
          firings.push({ call: k, kind: 'fire', figure: null, spans: [[b, b]] });
        }
      }
    }
    views.push(view(end));
  }
  return { views, firings };
}

/** Tokens of the turns before `end` with the conversation turns in `ranges` dropped. */
function droppedView(s: RefSession, end: number, ranges: ReadonlyArray<readonly [number, number]>): number {
  let v = 0;
  for (let q = 0; q < end; q++) if (!isConv(s.metas[q]) || !inRanges(ranges, q)) v += s.metas[q].tokenCount;
  return v;
}

const viewTurns = (s: RefSession, end: number, ranges: ReadonlyArray<readonly [number, number]>) => {
  let n = 0;
  for (let q = 0; q < end; q++) if (isConv(s.metas[q]) && !inRanges(ranges, q)) n++;
  return n;
};

export function referenceWindow(s: RefSession, p: WindowParams): RefResult {
  let ranges: Array<[number, number]> = [];
  const views: number[] = [];
  const firings: RefFiring[] = [];
  for (let k = 0; k < s.calls.length; k++) {
    const end = s.calls[k].position;
    if (viewTurns(s, end, ranges) > p.keepFirst + p.maxTurns) {
      const total = convCount(s.metas, 0, end);
      if (total > p.keepFirst + p.maxTurns) {
        const headEnd = safeAtOrAfter(s.metas, convPosition(s.metas, end, p.keepFirst));
        const tailStart = safeAtOrBefore(s.metas, convPosition(s.metas, end, total - p.maxTurns));
        const edges = headEnd < tailStart ? convEdges(s.metas, headEnd, tailStart) : null;
        if (edges) {
          ranges = [edges];
          firings.push({ call: k, kind: 'fire', figure: null, spans: [edges] });
        }
      }
    }
    views.push(droppedView(s, end, ranges));
  }
  return { views, firings };
}

/** Position of the k-th conversation turn of the view (not dropped), or `end`. */
function viewPosition(s: RefSession, end: number, ranges: ReadonlyArray<readonly [number, number]>, k: number): number {
  let seen = 0;
  for (let q = 0; q < end; q++) {
    if (!isConv(s.metas[q]) || inRanges(ranges, q)) continue;
    if (seen === k) return q;
    seen++;
  }
  return end;
}

function merge(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = ranges.map(([a, b]) => [a, b] as [number, number]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

export function referenceForgetting(s: RefSession, p: ForgettingParams): RefResult {
  let ranges: Array<[number, number]> = [];
  const views: number[] = [];
  const firings: RefFiring[] = [];
  for (let k = 0; k < s.calls.length; k++) {
    const end = s.calls[k].position;
    const length = viewTurns(s, end, ranges);
    if (length > p.maxSize) {
      const tail = Math.floor(p.maxSize / 2) - p.keepFirst;
      const headEnd = safeAtOrAfter(s.metas, viewPosition(s, end, ranges, p.keepFirst));
      const tailStart = safeAtOrBefore(s.metas, viewPosition(s, end, ranges, length - tail));
      let first = -1;
      let last = -1;
      for (let q = headEnd; q < tailStart; q++) {
        if (!isConv(s.metas[q]) || inRanges(ranges, q)) continue;
        if (first < 0) first = q;
        last = q;
      }
      if (first >= 0) {
        ranges = merge([...ranges, [first, last]]);
        firings.push({ call: k, kind: 'fire', figure: null, spans: ranges.map(([a, b]) => [a, b]) });
      }
    }
    views.push(droppedView(s, end, ranges));
  }
  return { views, firings };
}

