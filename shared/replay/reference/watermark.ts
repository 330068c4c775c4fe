/**
 * Reference of `watermark` (the session compaction spec, design version 1, as
 * shared/strategies/watermark.ts states it). Before each call: pending = the conversation
 * tokens between the watermark (the end of the leading system turns before the first pass)
 * and the last preserveRecentTurns conversation turns, by the variant's measure. At or over
 * the hard cap it compacts; at or over the soft threshold it compacts if the cost budget is
 * not spent (a projection's stand-in summaries cost nothing). The new watermark is the last
 * tool-cycle-safe cut at or before the preserved turns; it must move forward over at least
 * one conversation turn. One summary per pass, never re-summarized.
 */
import type { WatermarkParams } from '../../strategies/watermark.js';
import { measurePart } from '../../usage/measure.js';
import { convCount, convEdges, convPosition, convTokens, isConv, safeAtOrBefore, standInTokens, systemPrefixEnd, type RefFiring, type RefResult, type RefSession, type RefSummary } from './common.js';

export function referenceWatermark(s: RefSession, p: WatermarkParams): RefResult {
  let watermark: number | null = null;
  const summaries: RefSummary[] = [];
  const spentUsd = 0;
  const views: number[] = [];
  const firings: RefFiring[] = [];
  const view = (end: number) => {
    const from = systemPrefixEnd(s.metas, end);
    const to = watermark ?? from;
    let v = summaries.reduce((a, x) => a + x.tokens, 0);
    for (let q = 0; q < end; q++) if (!isConv(s.metas[q]) || q < from || q >= to) v += s.metas[q].tokenCount;
    return v;
  };
  for (let k = 0; k < s.calls.length; k++) {
    const end = s.calls[k].position;
    const prefixEnd = systemPrefixEnd(s.metas, end);
    const tailStart = Math.max(prefixEnd, convPosition(s.metas, end, Math.max(0, convCount(s.metas, 0, end) - p.preserveRecentTurns)));
    const current = Math.min(end, Math.max(prefixEnd, watermark ?? prefixEnd));
    const pending = measurePart(s.trigger, tailStart > current ? convTokens(s.metas, current, tailStart) : 0);
    const hard = pending >= p.hardCapTokens;
    const soft = pending >= p.softThresholdTokens;
    const budgetSpent = spentUsd >= p.maxCostPerSessionUsd;
    if (hard || (soft && !budgetSpent)) {
      const cut = safeAtOrBefore(s.metas, tailStart);
      if (tailStart > current && convCount(s.metas, current, tailStart) > 0 && cut > current && convCount(s.metas, current, cut) > 0) {
        const edges = convEdges(s.metas, current, cut)!;
        summaries.push({ id: summaries.length, kind: 'watermark', depth: 0, first: edges[0], last: edges[1], tokens: standInTokens(p.summaryMaxTokens), chars: 0, compacted: false });
        watermark = cut;
        firings.push({ call: k, kind: 'fire', figure: pending, spans: [edges] });
      }
    }
    views.push(view(end));
  }
  return { views, firings };
}
