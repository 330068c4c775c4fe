/**
 * The watermark planner on synthetic turn metas (100 tokens per turn unless stated):
 * pending tokens, soft/hard/budget decisions, the tool-cycle-safe watermark, the span.
 */
import { describe, expect, it } from 'vitest';
import { decideWatermark, planWatermark, truncationCut, watermarkStrategy, type WatermarkParams } from '../../shared/strategies/watermark.js';
import { buildSpanIndex } from '../../shared/strategies/spans.js';
import { planFor } from '../../shared/strategies/index.js';
import { defaultsOf } from '../../shared/strategies/params.js';
import type { ExistingSummary, VariantState } from '../../shared/strategies/types.js';
import type { Role, TurnMeta } from '../../shared/model/turn.js';

/** metas: roles from a compact string (s=system, u=user, a=assistant), 100 tokens each. */
function metas(roles: string, tokens = 100): TurnMeta[] {
  const map: Record<string, Role> = { s: 'system', u: 'user', a: 'assistant', t: 'tool' };
  return [...roles].map((c, i) => ({ id: 1000 + i, position: i, role: map[c], charCount: tokens * 4, tokenCount: tokens, cycleStart: i }));
}
/** Marks turn `result` as answering a tool_use at `use`. */
function cycle(ms: TurnMeta[], use: number, result: number): TurnMeta[] {
  ms[result].cycleStart = use;
  return ms;
}

const P = (o: Partial<WatermarkParams> = {}): WatermarkParams => ({ ...(defaultsOf(watermarkStrategy.specs) as WatermarkParams), ...o });
const noState: VariantState = {};

describe('watermark planner', () => {
  it('has the seed defaults', () => {
    expect(defaultsOf(watermarkStrategy.specs)).toEqual({ softThresholdTokens: 30000, hardCapTokens: 80000, preserveRecentTurns: 5, maxCostPerSessionUsd: 0.2, summaryMaxTokens: 2000, preMaskWindow: -1, contextMeasure: 0 });
  });

  it('counts pending tokens between the system prefix and the preserved turns', () => {
    // 2 system + 20 conversation turns; last 5 preserved -> 15 pending turns = 1500 tokens.
    const turns = metas('ss' + 'ua'.repeat(10));
    const d = decideWatermark({ turns, summaries: [], state: noState, params: P({ softThresholdTokens: 1500, hardCapTokens: 5000 }) });
    expect(d).toMatchObject({ prefixEnd: 2, tailStart: 17, currentWatermark: 2, pendingTokens: 1500, level: 'soft', compact: true, newWatermark: 17, forced: false });
  });

  it('skips below the soft threshold', () => {
    const plan = planWatermark({ turns: metas('s' + 'ua'.repeat(10)), summaries: [], state: noState, params: P({ softThresholdTokens: 1501 }) });
    expect(plan.trigger).toMatchObject({ compact: false, level: 'none' });
    expect(plan.trigger.reason).toBe('below_soft_threshold: pending 1,500 transcript tokens < soft threshold 1,501');
    expect(plan.spans).toEqual([]);
  });

  it('skips at the soft threshold when the budget is spent, compacts at the hard cap anyway (budget_exhausted_forced)', () => {
    const turns = metas('s' + 'ua'.repeat(10));
    const spent: VariantState = { spentUsd: 0.2 };
    const soft = decideWatermark({ turns, summaries: [], state: spent, params: P({ softThresholdTokens: 1000, hardCapTokens: 1600 }) });
    expect(soft).toMatchObject({ compact: false, skip: 'budget_exhausted', level: 'soft', budgetSpent: true });
    const hard = decideWatermark({ turns, summaries: [], state: spent, params: P({ softThresholdTokens: 1000, hardCapTokens: 1500 }) });
    expect(hard).toMatchObject({ compact: true, forced: true, level: 'hard', newWatermark: 16 });
    expect(hard.reason.startsWith('budget_exhausted_forced: pending 1,500 transcript tokens >= hard cap 1,500')).toBe(true);
  });

  it('slides the watermark earlier so a tool_use is never separated from its tool_result', () => {
    // positions: 0 s, 1..20 conv; tail starts at 16 (last 5 = 16..20). A cycle 14 -> 16 spans the cut.
    const turns = cycle(metas('s' + 'ua'.repeat(10)), 14, 16);
    const plan = planWatermark({ turns, summaries: [], state: noState, params: P({ softThresholdTokens: 100 }) });
    expect(plan.boundaries).toEqual([
      { kind: 'prefix-end', position: 1, label: 'stable prefix: 1 system turn(s)' },
      { kind: 'watermark', position: 14, label: 'watermark after this pass: 14' },
      // The marker stands where the 7 preserved turns start (14..20), with the watermark.
      { kind: 'preserved-tail', position: 14, label: 'last 7 turns preserved (5 asked, grown to keep a tool call with its result)' },
    ]);
    expect(plan.spans).toHaveLength(1);
    expect(plan.spans[0]).toMatchObject({ purpose: 'watermark', firstPosition: 1, lastPosition: 13, tokens: 1300, targetTokens: 2000, priorSummaryId: null });
    expect(plan.spans[0].turnIds).toEqual(Array.from({ length: 13 }, (_, i) => 1001 + i));
    expect(plan.trigger.reason).toContain('(moved back 2 turn(s) to keep a tool cycle whole)');
  });

  it('never puts a preserved turn in the span', () => {
    for (let preserve = 0; preserve <= 12; preserve++) {
      const turns = metas('s' + 'ua'.repeat(8));
      const plan = planWatermark({ turns, summaries: [], state: noState, params: P({ softThresholdTokens: 0, preserveRecentTurns: preserve }) });
      const preservedIds = new Set(turns.slice(Math.max(1, turns.length - preserve)).map((t) => t.id));
      for (const s of plan.spans) for (const id of s.turnIds) expect(preservedIds.has(id)).toBe(false);
    }
  });

  it('skips with no_valid_boundary when a tool cycle spans everything after the watermark', () => {
    const turns = cycle(metas('s' + 'ua'.repeat(10)), 1, 20);
    const plan = planWatermark({ turns, summaries: [], state: noState, params: P({ softThresholdTokens: 100 }) });
    expect(plan.trigger.compact).toBe(false);
    expect(plan.trigger.reason).toBe('no_valid_boundary: no tool-cycle-safe cut between the watermark (1) and the preserved turns (16): a tool cycle spans them');
  });

  it('counts only the turns after the watermark (design version 1), keeps earlier summaries as they are, and only moves forward', () => {
    const turns = metas('s' + 'ua'.repeat(10));
    const summary: ExistingSummary = { id: 7, kind: 'watermark', depth: 0, tokenCount: 250, charCount: 1000, compacted: false, firstPosition: 1, lastPosition: 10, childIds: [] };
    const state: VariantState = { watermark: 11, watermarkSummaryId: 7 };
    // pending = turns 11..15 (500): the summary is not pending, version 1 never re-summarizes it.
    expect(planWatermark({ turns, summaries: [summary], state, params: P({ softThresholdTokens: 501 }) }).trigger).toMatchObject({ compact: false, level: 'none' });
    const plan = planWatermark({ turns, summaries: [summary], state, params: P({ softThresholdTokens: 500 }) });
    expect(plan.trigger).toMatchObject({ compact: true, level: 'soft' });
    expect(plan.spans[0]).toMatchObject({ firstPosition: 11, lastPosition: 15, tokens: 500, priorSummaryId: null });
    // before: system 100 + summary 250 + turns 11..20 (1000); after: 100 + 250 + min(2000, 500) + 500
    expect(plan.tokensBefore).toBe(1350);
    expect(plan.tokensAfter).toBe(1350);
    expect(plan.dag.nodes).toEqual([
      { id: 's7', depth: 0, projected: false, firstPosition: 1, lastPosition: 10, tokens: 250, compacted: false },
      { id: 'p0', depth: 0, projected: true, firstPosition: 11, lastPosition: 15, tokens: 500, compacted: false },
    ]);
    expect(plan.dag.edges).toEqual([]);
    // Nothing new between the watermark and the tail: skip.
    const caughtUp = decideWatermark({ turns, summaries: [summary], state: { watermark: 16, watermarkSummaryId: 7 }, params: P({ softThresholdTokens: 0 }) });
    expect(caughtUp).toMatchObject({ compact: false, skip: 'nothing_new' });
  });

  it('projects tokens after with the summary at its target size', () => {
    const turns = metas('s' + 'ua'.repeat(30), 1000);
    const plan = planFor('watermark', { turns, summaries: [], state: noState, params: {} });
    // 60 conv turns x 1000: pending = 55,000 >= soft 30,000
    expect(plan.trigger).toMatchObject({ compact: true, level: 'soft' });
    expect(plan.tokensBefore).toBe(61000);
    expect(plan.tokensAfter).toBe(1000 + 2000 + 5000);
    expect(plan.budget).toBe(80000);
  });

  it('truncation cut: the smallest safe cut that brings pending under the hard cap', () => {
    const turns = metas('s' + 'ua'.repeat(10));
    const params = P({ softThresholdTokens: 0, hardCapTokens: 1000 });
    const ix = buildSpanIndex(turns);
    const d = decideWatermark({ turns, summaries: [], state: noState, params }, ix);
    // pending 1500; keeping 0 summary tokens, turns [b, 16) must be < 1000 -> b = 7 (900 tokens).
    expect(truncationCut(ix, d, 0, 1000)).toBe(7);
    // With 250 kept: < 750 -> b = 9.
    expect(truncationCut(ix, d, 250, 1000)).toBe(9);
    // A cycle 8 -> 10 makes 9 unsafe: next safe cut is 11.
    const ix2 = buildSpanIndex(cycle(metas('s' + 'ua'.repeat(10)), 8, 10));
    expect(truncationCut(ix2, d, 250, 1000)).toBe(11);
  });
});
