import { describe, expect, it } from 'vitest';
import type { TurnMeta } from '../../shared/model/turn.js';
import {
  buildSpanIndex,
  chunkRange,
  convTokensInRanges,
  convTokensInUnion,
  mergeFlatIntervals,
  firstCutReaching,
  isSafeCut,
  makeSpan,
  mergeIntervals,
  positionOfConvTurn,
  safeCutAtOrAfter,
  safeCutAtOrBefore,
  uncoveredGaps,
} from '../../shared/strategies/spans.js';
import { syntheticSessionMetas } from '../../bench/plan.js';

/** roles: s=system u=user a=assistant t=tool result answering the previous turn (or an earlier one via cycle map). */
function metas(roles: string, tokens: number[] | number = 10, cycles: Record<number, number> = {}): TurnMeta[] {
  return [...roles].map((r, i) => {
    const role = r === 's' ? 'system' : r === 'u' ? 'user' : r === 'a' ? 'assistant' : 'tool';
    const tok = typeof tokens === 'number' ? tokens : tokens[i];
    return { id: 100 + i, position: i, role, tokenCount: tok, charCount: tok * 4, cycleStart: cycles[i] ?? (r === 't' ? i - 1 : i) } as TurnMeta;
  });
}

describe('span index', () => {
  it('marks a cut between a tool_use and its tool_result unsafe', () => {
    // 0 s, 1 u, 2 a(use), 3 t(result of 2), 4 a
    const ix = buildSpanIndex(metas('suata'));
    expect([0, 1, 2, 3, 4, 5].map((b) => isSafeCut(ix, b))).toEqual([true, true, true, false, true, true]);
    expect(safeCutAtOrBefore(ix, 3)).toBe(2);
    expect(safeCutAtOrAfter(ix, 3)).toBe(4);
  });

  it('treats a result answering an older call as holding every cut in between', () => {
    // result at 5 answers the call at 1: cuts 2..5 are unsafe
    const ix = buildSpanIndex(metas('uauaut', 10, { 5: 1 }));
    expect([0, 1, 2, 3, 4, 5, 6].map((b) => isSafeCut(ix, b))).toEqual([true, true, false, false, false, false, true]);
  });

  it('sums conversation turns without system turns', () => {
    const ix = buildSpanIndex(metas('suau', [50, 1, 2, 3]));
    expect(ix.tokenPrefix[4]).toBe(56);
    expect(ix.convTokenPrefix[4]).toBe(6);
    expect(ix.convCharPrefix[4]).toBe(24);
    expect(positionOfConvTurn(ix, 0)).toBe(1);
    expect(positionOfConvTurn(ix, 2)).toBe(3);
    expect(positionOfConvTurn(ix, 3)).toBe(4);
  });

  it('finds the cut where a running length first reaches a target, the crossing turn included', () => {
    const ix = buildSpanIndex(metas('uauaua', [10, 10, 10, 10, 10, 10]));
    expect(firstCutReaching(ix.convTokenPrefix, 0, 6, 25)).toBe(3);
    expect(firstCutReaching(ix.convTokenPrefix, 0, 6, 20)).toBe(2);
    expect(firstCutReaching(ix.convTokenPrefix, 2, 6, 1000)).toBe(6);
  });
});

describe('chunking by size', () => {
  it('closes a chunk before the turn that would exceed the target', () => {
    const ix = buildSpanIndex(metas('uauauau', [10, 10, 10, 10, 10, 10, 10]));
    expect(chunkRange(ix, 0, 7, 25)).toEqual([[0, 2], [2, 4], [4, 6], [6, 7]]);
  });

  it('makes a single turn larger than the target a chunk of its own', () => {
    const ix = buildSpanIndex(metas('uau', [10, 100, 10]));
    expect(chunkRange(ix, 0, 3, 25)).toEqual([[0, 1], [1, 2], [2, 3]]);
  });

  it('moves a cut back to keep a tool cycle whole, or forward when the cycle alone is larger', () => {
    // 0 u, 1 a(use), 2 t, 3 a(use), 4 t, 5 u
    const ix = buildSpanIndex(metas('uatatu', [10, 10, 10, 10, 10, 10]));
    expect(chunkRange(ix, 0, 6, 25)).toEqual([[0, 1], [1, 3], [3, 5], [5, 6]]);
    expect(chunkRange(ix, 0, 6, 5)).toEqual([[0, 1], [1, 3], [3, 5], [5, 6]]);
  });

  it('builds spans over conversation turns only', () => {
    const turns = metas('usau', [10, 99, 10, 10]);
    const ix = buildSpanIndex(turns);
    expect(makeSpan(turns, ix, { id: 'p0', purpose: 'leaf', from: 0, to: 3, targetTokens: 5 })).toEqual({
      id: 'p0', purpose: 'leaf', firstPosition: 0, lastPosition: 2, turnIds: [100, 102], tokens: 20, chars: 80, targetTokens: 5,
    });
    expect(makeSpan(turns, ix, { id: 'p1', purpose: 'leaf', from: 1, to: 2, targetTokens: 5 })).toBeNull();
  });
});

describe('intervals', () => {
  it('merges touching intervals and lists the gaps between them', () => {
    const merged = mergeIntervals([[5, 7], [0, 2], [3, 4], [10, 12]]);
    expect(merged).toEqual([[0, 7], [10, 12]]);
    expect(uncoveredGaps(merged, 0, 15)).toEqual([[8, 10], [13, 15]]);
    expect(uncoveredGaps(merged, 0, 9)).toEqual([[8, 9]]);
    expect(uncoveredGaps([], 2, 4)).toEqual([[2, 4]]);
  });

  it('mergeFlatIntervals merges as mergeIntervals does, and convTokensInUnion counts what convTokensInRanges counts over them, for 5,000 random sets (overlapping, touching, unordered, past either end)', () => {
    const ix = buildSpanIndex(syntheticSessionMetas(3000));
    let seed = 11;
    const rand = (k: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % k;
    };
    const flat: number[] = [];
    for (let t = 0; t < 5000; t++) {
      const pairs: Array<[number, number]> = [];
      const count = rand(12);
      for (let i = 0; i < count; i++) {
        const a = rand(3100) - 50;
        pairs.push([a, a + rand(t % 2 === 0 ? 40 : 900)]);
      }
      pairs.forEach(([a, b], i) => {
        flat[2 * i] = a;
        flat[2 * i + 1] = b;
      });
      expect(mergeFlatIntervals(flat.slice(), pairs.length)).toEqual(mergeIntervals(pairs));
      expect(convTokensInUnion(ix, flat, pairs.length)).toBe(convTokensInRanges(ix, mergeIntervals(pairs)));
    }
  });
});
