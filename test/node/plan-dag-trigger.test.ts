/**
 * dag's trigger count (triggerCount) and maxCondenseDepth at both ends, on a long session
 * (1,200 turns of 100 tokens, built with test/helpers/synthetic-turns.ts).
 */
import { TRANSCRIPT_MEASURE } from '../../shared/usage/measure.js';
import { describe, expect, it } from 'vitest';
import { planFor, STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import type { ExistingSummary } from '../../shared/strategies/types.js';
import { metasOf } from '../helpers/synthetic-turns.js';

const turns = metasOf('ua'.repeat(600)); // 1,200 turns, 120,000 tokens
// One leaf summary of 1,000 tokens covering turns 0-799 (80,000 tokens): visible = 1,000 + 40,000 = 41,000.
const leaf: ExistingSummary = { id: 1, kind: 'leaf', depth: 0, tokenCount: 1000, charCount: 4000, compacted: false, firstPosition: 0, lastPosition: 799, childIds: [] };
const base = { tokenBudget: 100000, contextThreshold: 0.5, leafChunkTokens: 5000, freshTailCount: 16 };

describe('dag trigger count', () => {
  it('default: the visible context (summaries + uncovered turns); 1: all raw turns + top-level summaries', () => {
    const visible = planFor('dag', { turns, summaries: [leaf], state: {}, params: base });
    expect(visible.trigger.compact).toBe(false); // 41,000 <= 50,000
    expect(visible.trigger.reason).toMatch(/^context 41,000 transcript tokens/);
    const reference = planFor('dag', { turns, summaries: [leaf], state: {}, params: { ...base, triggerCount: 1 } });
    expect(reference.trigger.compact).toBe(true); // 120,000 + 1,000 > 50,000
    expect(reference.trigger.reason).toMatch(/^raw turns \+ top-level summaries 121,000 transcript tokens/);
    // The figure the model sees is the visible one either way.
    expect(reference.tokensBefore).toBe(41000);
    expect(STRATEGY_DEFINITIONS.dag.description).toContain('by default (triggerCount 0), the visible context');
    // No false negatives in the live check with the reference count.
    expect(STRATEGY_DEFINITIONS.dag.live.mayFire({ contextTokens: 0, viewTokens: 0, viewTurns: 0, newToolCycles: 0, measure: TRANSCRIPT_MEASURE, end: 0, convTokenPrefix: new Float64Array(1) }, { ...reference.params }, {})).toBe(true);
  });
});

describe('maxCondenseDepth at both ends', () => {
  // 1,184 evictable turns / 50 per 5,000-token chunk = 24 leaves (23 x 50 + 34).
  it('0 = leaves only: 24 leaves, nothing condensed', () => {
    const p = planFor('dag', { turns, summaries: [], state: {}, params: { ...base, maxCondenseDepth: 0 } });
    expect(p.spans).toHaveLength(24);
    expect(p.condense).toHaveLength(0);
    expect(STRATEGY_DEFINITIONS.dag.specs.find((s) => s.name === 'maxCondenseDepth')?.doc).toContain('0 = leaves only (no condensation at all');
  });

  it('a large value (100) condenses as far as the fanout allows: 24 leaves -> 1 parent at depth 1 (fanout 4 needs 4 at depth 1 for a depth 2)', () => {
    const p = planFor('dag', { turns, summaries: [], state: {}, params: { ...base, maxCondenseDepth: 100 } });
    expect(p.spans).toHaveLength(24);
    expect(p.condense.map((c) => [c.depth, c.childIds.length])).toEqual([[1, 24]]);
    // Same as unlimited (-1).
    const unlimited = planFor('dag', { turns, summaries: [], state: {}, params: { ...base, maxCondenseDepth: -1 } });
    expect(unlimited.condense).toEqual(p.condense);
  });
});
