/**
 * Reference of `dag` (lossless-claw's compaction, as shared/strategies/dag.ts states it):
 * before each call, the context the model would receive (system turns + uncompacted
 * summaries + the turns no leaf covers) by the variant's measure; over tokenBudget ×
 * contextThreshold it compacts: leaf summaries of ~leafChunkTokens chunks of the uncovered
 * turns before the fresh tail (the last freshTailCount turns, moved earlier to a safe cut),
 * then, depth by depth, all uncompacted summaries of a depth condensed into one parent once
 * there are condensedMinFanout of them (up to maxCondenseDepth; -1 = no limit).
 */
import { DAG_CONDENSED_TARGET_TOKENS, DAG_LEAF_TARGET_TOKENS, TRIGGER_REFERENCE, UNLIMITED_DEPTH, type DagParams } from '../../strategies/dag.js';
import { allTokens, convEdges, measuredAt, safeAtOrBefore, standInTokens, viewTokens, type RefFiring, type RefResult, type RefSession, type RefSummary } from './common.js';
import { referenceChunks } from './chunks.js';

export function referenceDag(s: RefSession, p: DagParams): RefResult {
  const summaries: RefSummary[] = [];
  const views: number[] = [];
  const firings: RefFiring[] = [];
  const covered = (q: number) => summaries.some((x) => x.depth === 0 && x.first <= q && q <= x.last);
  const live = () => summaries.filter((x) => !x.compacted);
  const view = (end: number) => viewTokens(s.metas, end, covered, live());
  for (let k = 0; k < s.calls.length; k++) {
    const end = s.calls[k].position;
    const v = view(end);
    const measured = measuredAt(s, k, v);
    const counted = p.triggerCount === TRIGGER_REFERENCE ? allTokens(s.metas, end) + live().reduce((a, x) => a + x.tokens, 0) + (measured - v) : measured;
    if (counted > p.tokenBudget * p.contextThreshold) {
      const made: RefSummary[] = [];
      const freshTailStart = safeAtOrBefore(s.metas, Math.max(0, end - p.freshTailCount));
      // The uncovered stretches before the fresh tail, each cut into chunks.
      let q = 0;
      while (q < freshTailStart) {
        if (covered(q)) {
          q++;
          continue;
        }
        let gapEnd = q;
        while (gapEnd < freshTailStart && !covered(gapEnd)) gapEnd++;
        for (const [a, b] of referenceChunks(s.metas, end, q, gapEnd, p.leafChunkTokens, 'tokens')) {
          const edges = convEdges(s.metas, a, b);
          if (edges) made.push({ id: summaries.length + made.length, kind: 'leaf', depth: 0, first: edges[0], last: edges[1], tokens: standInTokens(DAG_LEAF_TARGET_TOKENS), chars: 0, compacted: false });
        }
        q = gapEnd;
      }
      summaries.push(...made);
      // Condensation, depth by depth, over everything uncompacted (what existed and the new leaves).
      for (let depth = 0; ; depth++) {
        const level = summaries.filter((x) => !x.compacted && x.depth === depth);
        if (level.length < p.condensedMinFanout) break;
        if (p.maxCondenseDepth !== UNLIMITED_DEPTH && depth + 1 > p.maxCondenseDepth) break;
        for (const x of level) x.compacted = true;
        const parent: RefSummary = { id: summaries.length, kind: 'condensed', depth: depth + 1, first: Math.min(...level.map((x) => x.first)), last: Math.max(...level.map((x) => x.last)), tokens: standInTokens(DAG_CONDENSED_TARGET_TOKENS), chars: 0, compacted: false };
        summaries.push(parent);
        made.push(parent);
      }
      if (made.length > 0) firings.push({ call: k, kind: 'fire', figure: measured, spans: made.map((x) => [x.first, x.last]) });
    }
    views.push(view(end));
  }
  return { views, firings };
}
