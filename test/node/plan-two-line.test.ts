/**
 * The two-line planner on synthetic metas (100 tokens and 400 characters per turn):
 * the lines and their fallback, the kept window, one span per summary row (digest, model summary), the profiles.
 */
import { describe, expect, it } from 'vitest';
import { decideTwoLine, effectiveKeepLast, effectiveLines, planTwoLine, twoLineStrategy, ORDINARY_PROFILE_KEEP_LAST, type TwoLineParams } from '../../shared/strategies/two-line.js';
import { planFor } from '../../shared/strategies/index.js';
import { defaultsOf } from '../../shared/strategies/params.js';
import type { ExistingSummary } from '../../shared/strategies/types.js';
import type { Role, TurnMeta } from '../../shared/model/turn.js';

function metas(roles: string, tokens = 100, chars = 400): TurnMeta[] {
  const map: Record<string, Role> = { s: 'system', u: 'user', a: 'assistant' };
  return [...roles].map((c, i) => ({ id: 1000 + i, position: i, role: map[c], charCount: chars, tokenCount: tokens, cycleStart: i }));
}
const P = (o: Partial<TwoLineParams> = {}): TwoLineParams => ({ ...(defaultsOf(twoLineStrategy.specs) as TwoLineParams), keepLast: 10, chunkChars: 2000, ...o });
// system + 60 conversation turns = 6,100 tokens seen.
const SIXTY = () => metas('s' + 'ua'.repeat(30));
const ranges = (spans: { firstPosition: number; lastPosition: number }[]) => spans.map((s) => [s.firstPosition, s.lastPosition]);

describe('two-line planner', () => {
  it('has the seed defaults and both profiles as a parameter', () => {
    expect(defaultsOf(twoLineStrategy.specs)).toEqual({ warningPct: 50, emergencyPct: 80, contextWindow: 200000, profile: 0, keepLast: -1, minBatch: 20, chunkChars: 18000, concurrency: 4, preMaskWindow: -1, contextMeasure: 0 });
    expect(ORDINARY_PROFILE_KEEP_LAST).toBe(6);
    expect(effectiveKeepLast({ profile: 0, keepLast: -1 })).toBe(40);
    expect(effectiveKeepLast({ profile: 1, keepLast: -1 })).toBe(6);
    expect(effectiveKeepLast({ profile: 1, keepLast: 12 })).toBe(12);
    expect(twoLineStrategy.description).toContain('profile 1 (ordinary chat) keeps 6');
  });

  it('does nothing below the warning line', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 20000 }) });
    expect(plan.trigger).toEqual({ compact: false, level: 'none', pressure: 0.305, reason: 'pressure 30.5% of 20,000 tokens (6,100 transcript tokens), lines 50/80%: below warning, nothing to do' });
    expect(plan.spans).toEqual([]);
  });

  it('between the lines: ONE model-summary span over the turns beyond the kept window, not one per chunk', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 10000 }) });
    expect(plan.trigger).toMatchObject({ compact: true, level: 'warning', pressure: 0.61 });
    expect(plan.boundaries).toEqual([
      { kind: 'kept-window', position: 51, label: 'last 10 turns kept' },
      { kind: 'warning', position: 50, label: 'warning line: 50% of 10,000 tokens' },
    ]);
    // Turns 1-50 (5,000 tokens) become one summary of an eighth of them: 625 tokens.
    expect(plan.spans.map((s) => [s.purpose, s.firstPosition, s.lastPosition, s.tokens, s.targetTokens])).toEqual([['chunk', 1, 50, 5000, 625]]);
    expect(plan.tokensBefore).toBe(6100);
    expect(plan.tokensAfter).toBe(6100 - 5000 + 625);
  });

  it('waits for minBatch pending turns before a background batch', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 10000, keepLast: 41 }) });
    expect(plan.trigger.compact).toBe(false);
    expect(plan.trigger.reason).toBe('pressure 61.0% of 10,000 tokens (6,100 transcript tokens), lines 50/80%: warning, background pass (19 pending turns, fewer than minBatch 20); nothing to summarize yet');
  });

  it('at the emergency line (agent profile): the digest now and the model summary that supersedes it, one span each', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 7000 }) });
    expect(plan.trigger).toMatchObject({ compact: true, level: 'emergency' });
    expect(plan.spans.map((s) => [s.id, s.purpose, s.firstPosition, s.lastPosition, s.tokens, s.targetTokens])).toEqual([
      ['p0', 'digest', 1, 50, 5000, 625],
      ['p1', 'chunk', 1, 50, 5000, 625],
    ]);
    expect(plan.dag.nodes).toEqual([
      { id: 'p0', depth: 0, projected: true, firstPosition: 1, lastPosition: 50, tokens: 625, compacted: true },
      { id: 'p1', depth: 0, projected: true, firstPosition: 1, lastPosition: 50, tokens: 625, compacted: false },
    ]);
    expect(plan.tokensAfter).toBe(6100 - 5000 + 625);
  });

  it('the ordinary profile keeps 6 turns and writes the model summary right away (no digest)', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 7000, profile: 1, keepLast: -1 }) });
    expect(plan.trigger).toMatchObject({ compact: true, level: 'emergency' });
    expect(plan.trigger.reason).toContain('model summary of 54 new turns now (ordinary profile)');
    // 60 conversation turns, the last 6 kept: turns 1-54 (5,400 tokens) → 675.
    expect(plan.spans.map((s) => [s.purpose, s.firstPosition, s.lastPosition, s.targetTokens])).toEqual([['chunk', 1, 54, 675]]);
    expect(plan.boundaries[0]).toEqual({ kind: 'kept-window', position: 55, label: 'last 6 turns kept' });
  });

  it('a later pass continues the previous model summary: one span over the new turns, the old row superseded', () => {
    const turns = metas('s' + 'ua'.repeat(60));
    const base: ExistingSummary = { id: 7, kind: 'chunk', depth: 0, tokenCount: 625, charCount: 2500, compacted: false, firstPosition: 1, lastPosition: 50, childIds: [] };
    const plan = planTwoLine({ turns, summaries: [base], state: { coveredUntil: 51 }, params: P({ contextWindow: 12000 }) });
    // Seen: system 100 + summary 625 + turns 51-120 (7,000) = 7,725 = 64.4% of 12,000.
    expect(plan.trigger).toMatchObject({ compact: true, level: 'warning' });
    // New turns 51-110 (6,000 tokens) folded with the base's 625: ceil(6,625 / 8) = 829.
    expect(plan.spans.map((s) => [s.purpose, s.firstPosition, s.lastPosition, s.tokens, s.targetTokens])).toEqual([['chunk', 51, 110, 6000, 829]]);
    expect(plan.dag.nodes.find((n) => n.id === 's7')?.compacted).toBe(true);
    expect(plan.dag.nodes.find((n) => n.id === 'p0')).toMatchObject({ firstPosition: 1, lastPosition: 110 });
    expect(plan.tokensAfter).toBe(7725 - 625 - 6000 + 829);
  });

  it('falls back to 50/80 for a nonsense pair and says so', () => {
    expect(effectiveLines({ warningPct: 90, emergencyPct: 50 })).toEqual({ warningPct: 50, emergencyPct: 80, fellBack: true });
    expect(effectiveLines({ warningPct: 50, emergencyPct: 150 })).toEqual({ warningPct: 50, emergencyPct: 80, fellBack: true });
    expect(effectiveLines({ warningPct: 70, emergencyPct: 70 })).toEqual({ warningPct: 50, emergencyPct: 80, fellBack: true });
    expect(effectiveLines({ warningPct: 60, emergencyPct: 70 })).toEqual({ warningPct: 60, emergencyPct: 70, fellBack: false });
    // Through the resolver too: not a parameter error.
    const plan = planFor('two-line', { turns: SIXTY(), summaries: [], state: {}, params: { warningPct: 90, emergencyPct: 50, contextWindow: 10000, keepLast: 10, chunkChars: 2000 } });
    expect(plan.trigger.level).toBe('warning');
    expect(plan.trigger.reason.startsWith('pressure 61.0% of 10,000 tokens (6,100 transcript tokens), lines 50/80% (the given pair 90/50 is not 0 <= warning < emergency <= 100: fell back to 50/80): warning')).toBe(true);
  });

  it('moves the kept window earlier so it never starts inside a tool cycle', () => {
    const turns = SIXTY();
    turns[51].cycleStart = 49; // the first kept turn answers a call two turns earlier
    const d = decideTwoLine({ turns, summaries: [], state: {}, params: P({ contextWindow: 10000 }) });
    expect(d.keptStart).toBe(49);
    expect(d.backgroundRange).toEqual([1, 49]);
  });

  it('below warning, an existing digest still awaits its upgrade', () => {
    const digest: ExistingSummary = { id: 5, kind: 'digest', depth: 0, tokenCount: 600, charCount: 2400, compacted: false, firstPosition: 1, lastPosition: 50, childIds: [] };
    const plan = planTwoLine({ turns: SIXTY(), summaries: [digest], state: { coveredUntil: 51 }, params: P({ contextWindow: 20000 }) });
    expect(plan.tokensBefore).toBe(6100 - 5000 + 600);
    expect(plan.trigger).toMatchObject({ compact: true, level: 'none', reason: 'pressure 8.5% of 20,000 tokens (1,700 transcript tokens), lines 50/80%: below warning, but the digest awaits its upgrade' });
    // No model summary yet: the upgrade reads turns 1-50 again, into one row.
    expect(ranges(plan.spans)).toEqual([[1, 50]]);
    expect(plan.dag.nodes.find((n) => n.id === 's5')?.compacted).toBe(true);
    expect(plan.tokensAfter).toBe(1700 - 600 + 625);
  });
});
