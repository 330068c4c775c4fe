/**
 * The chunk rule the dag leaves and two-line's background chunks share, written out (the
 * fast one is shared/strategies/spans.ts `chunkRange`): [from, to) is cut into consecutive
 * chunks; a chunk closes before the conversation turn that would take it past `target`
 * (system turns weigh nothing and ride along); a turn larger than the target is a chunk of
 * its own; a chunk ends only at a tool-cycle-safe cut: back to the nearest safe cut inside
 * the chunk, else forward to the next one (the chunk grows rather than split a tool cycle).
 */
import type { TurnMeta } from '../../model/turn.js';
import { isConv, safeAtOrAfter, safeAtOrBefore } from './common.js';

export function referenceChunks(metas: readonly TurnMeta[], end: number, from: number, to: number, target: number, weigh: 'tokens' | 'chars'): Array<[number, number]> {
  const weight = (p: number) => (isConv(metas[p]) ? (weigh === 'tokens' ? metas[p].tokenCount : metas[p].charCount) : 0);
  const out: Array<[number, number]> = [];
  let start = from;
  while (start < to) {
    // The largest cut whose chunk stays within the target.
    let cut = start;
    let sum = 0;
    for (let p = start; p < to; p++) {
      sum += weight(p);
      if (sum <= target) cut = p + 1;
      else break;
    }
    if (cut <= start) cut = start + 1;
    if (cut < to) {
      const back = safeAtOrBefore(metas, cut);
      cut = back > start ? back : Math.min(safeAtOrAfter(metas, cut), to);
    }
    out.push([start, cut]);
    start = cut;
  }
  return out;
}
