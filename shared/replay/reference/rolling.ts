/**
 * Reference of `rolling` (the rolling-summary design, shared/strategies/rolling.ts). The design
 * is manual; a replay calls it whenever the context (by the variant's measure) reaches
 * replayTriggerTokens. A call, in characters: total = summary length + the characters of the
 * non-system turns from the pointer; target = floor(total × compactionCount / 100); collect
 * turns from the pointer until their length reaches the target (the crossing turn included),
 * extended to the next tool-cycle-safe cut; fold them with the summary into one new summary;
 * advance the pointer by the turns collected. Nothing new or an empty target: no call.
 */
import { rollingTargetTokens, type RollingLiveParams } from '../../strategies/rolling.js';
import { convChars, convCount, convEdges, convPosition, convTokens, isConv, measuredAt, safeAtOrAfter, safeAtOrBefore, standInTokens, STAND_IN_CHARS, type RefFiring, type RefResult, type RefSession, type RefSummary } from './common.js';

export function referenceRolling(s: RefSession, p: RollingLiveParams): RefResult {
  let pointer = 0;
  let summary: RefSummary | null = null;
  const views: number[] = [];
  const firings: RefFiring[] = [];
  const view = (end: number) => {
    const from = convPosition(s.metas, end, pointer);
    let v = summary ? summary.tokens : 0;
    for (let q = 0; q < end; q++) if (!isConv(s.metas[q]) || q >= from) v += s.metas[q].tokenCount;
    return v;
  };
  for (let k = 0; k < s.calls.length; k++) {
    const end = s.calls[k].position;
    const measured = measuredAt(s, k, view(end));
    if (measured >= p.replayTriggerTokens) {
      const from = convPosition(s.metas, end, pointer);
      const total = (summary ? summary.chars : 0) + convChars(s.metas, from, end);
      const target = Math.floor((total * p.compactionCount) / 100);
      if (convCount(s.metas, from, end) > 0 && target > 0) {
        let crossing = end;
        for (let q = from + 1; q <= end; q++) {
          if (convChars(s.metas, from, q) >= target) {
            crossing = q;
            break;
          }
        }
        // Extended to the next safe cut; if that lies after this call (a call still open), stopped before the open call.
        const after = safeAtOrAfter(s.metas, crossing);
        const cut = after <= end ? after : safeAtOrBefore(s.metas, crossing);
        const edges = cut > from ? convEdges(s.metas, from, cut) : null;
        if (edges) {
          const tokens = standInTokens(rollingTargetTokens(summary ? summary.tokens : 0, convTokens(s.metas, from, cut)));
          summary = { id: firings.length, kind: 'rolling', depth: 0, first: summary ? Math.min(summary.first, edges[0]) : edges[0], last: edges[1], tokens, chars: STAND_IN_CHARS, compacted: false };
          pointer += convCount(s.metas, from, cut);
          firings.push({ call: k, kind: 'fire', figure: measured, spans: [[summary.first, summary.last]] });
        }
      }
    }
    views.push(view(end));
  }
  return { views, firings };
}
