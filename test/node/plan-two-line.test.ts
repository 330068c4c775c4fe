/**
 * The two-line planner on synthetic metas (100 tokens and 400 characters per turn):
 * the lines and their fallback, the kept window, digest and chunk spans, upgrades.
 */
import { describe, expect, it } from 'vitest';
import { decideTwoLine, effectiveLines, planTwoLine, twoLineStrategy, ORDINARY_PROFILE_KEEP_LAST, type TwoLineParams } from '../../shared/strategies/two-line.js';
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
const FIVE_TURN_CHUNKS = Array.from({ length: 10 }, (_, k) => [1 + 5 * k, 5 + 5 * k]);

describe('two-line planner', () => {
  it('has the seed defaults and documents the ordinary profile', () => {
    expect(defaultsOf(twoLineStrategy.specs)).toEqual({ warningPct: 50, emergencyPct: 80, contextWindow: 200000, keepLast: 40, minBatch: 20, chunkChars: 18000, concurrency: 4, preMaskWindow: -1 });
    expect(ORDINARY_PROFILE_KEEP_LAST).toBe(6);
    expect(twoLineStrategy.description).toContain('use 6 for an ordinary chat');
  });

  it('does nothing below the warning line', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 20000 }) });
    expect(plan.trigger).toEqual({ compact: false, level: 'none', pressure: 0.305, reason: 'pressure 30.5% of 20,000 tokens, lines 50/80%: below warning, nothing to do' });
    expect(plan.spans).toEqual([]);
  });

  it('between the lines: chunks of the turns beyond the kept window, closing before the turn that passes chunkChars', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 10000 }) });
    expect(plan.trigger).toMatchObject({ compact: true, level: 'warning', pressure: 0.61 });
    expect(plan.boundaries).toEqual([
      { kind: 'kept-window', position: 51, label: 'last 10 turns kept' },
      { kind: 'warning', position: 50, label: 'warning line: 50% of 10,000 tokens' },
    ]);
    // 400 chars per turn, 2,000 per chunk: five turns each.
    expect(ranges(plan.spans)).toEqual(FIVE_TURN_CHUNKS);
    expect(plan.spans.every((s) => s.purpose === 'chunk' && s.targetTokens === 125 && s.tokens === 500)).toBe(true);
    expect(plan.tokensBefore).toBe(6100);
    expect(plan.tokensAfter).toBe(6100 - 10 * (500 - 125));
  });

  it('waits for minBatch pending turns before a background batch', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 10000, keepLast: 41 }) });
    expect(plan.trigger.compact).toBe(false);
    expect(plan.trigger.reason).toBe('pressure 61.0% of 10,000 tokens, lines 50/80%: warning, background pass (19 pending turns, fewer than minBatch 20); nothing to summarize yet');
  });

  it('at the emergency line: one digest of everything but the kept window now, and its upgrade chunks', () => {
    const plan = planTwoLine({ turns: SIXTY(), summaries: [], state: {}, params: P({ contextWindow: 7000 }) });
    expect(plan.trigger).toMatchObject({ compact: true, level: 'emergency' });
    expect(plan.spans[0]).toMatchObject({ id: 'p0', purpose: 'digest', firstPosition: 1, lastPosition: 50, tokens: 5000, targetTokens: 625 });
    expect(ranges(plan.spans.slice(1))).toEqual(FIVE_TURN_CHUNKS);
    expect(plan.dag.nodes[0]).toEqual({ id: 'p0', depth: 0, projected: true, firstPosition: 1, lastPosition: 50, tokens: 625, compacted: true });
    expect(plan.tokensAfter).toBe(6100 - 10 * (500 - 125));
  });

  it('falls back to 50/80 for a nonsense pair and says so', () => {
    expect(effectiveLines({ warningPct: 90, emergencyPct: 50 })).toEqual({ warningPct: 50, emergencyPct: 80, fellBack: true });
    expect(effectiveLines({ warningPct: 50, emergencyPct: 150 })).toEqual({ warningPct: 50, emergencyPct: 80, fellBack: true });
    expect(effectiveLines({ warningPct: 70, emergencyPct: 70 })).toEqual({ warningPct: 50, emergencyPct: 80, fellBack: true });
    expect(effectiveLines({ warningPct: 60, emergencyPct: 70 })).toEqual({ warningPct: 60, emergencyPct: 70, fellBack: false });
    // Through the resolver too: not a parameter error.
    const plan = planFor('two-line', { turns: SIXTY(), summaries: [], state: {}, params: { warningPct: 90, emergencyPct: 50, contextWindow: 10000, keepLast: 10, chunkChars: 2000 } });
    expect(plan.trigger.level).toBe('warning');
    expect(plan.trigger.reason.startsWith('pressure 61.0% of 10,000 tokens, lines 50/80% (the given pair 90/50 is not 0 <= warning < emergency <= 100: fell back to 50/80): warning')).toBe(true);
  });

  it('moves the kept window earlier so it never starts inside a tool cycle', () => {
    const turns = SIXTY();
    turns[51].cycleStart = 49; // the first kept turn answers a call two turns earlier
    const d = decideTwoLine({ turns, summaries: [], state: {}, params: P({ contextWindow: 10000 }) });
    expect(d.keptStart).toBe(49);
    expect(d.newChunks[d.newChunks.length - 1][1]).toBe(49);
  });

  it('keeps an over-long turn as a chunk of its own', () => {
    const turns = SIXTY();
    turns[8].charCount = 5000;
    const d = decideTwoLine({ turns, summaries: [], state: {}, params: P({ contextWindow: 10000 }) });
    expect(d.newChunks.slice(0, 4)).toEqual([[1, 6], [6, 8], [8, 9], [9, 14]]);
  });

  it('below warning, an existing digest still awaits its upgrade', () => {
    const digest: ExistingSummary = { id: 5, kind: 'digest', depth: 0, tokenCount: 600, charCount: 2400, compacted: false, firstPosition: 1, lastPosition: 50, childIds: [] };
    const plan = planTwoLine({ turns: SIXTY(), summaries: [digest], state: { coveredUntil: 51 }, params: P({ contextWindow: 20000 }) });
    expect(plan.tokensBefore).toBe(6100 - 5000 + 600);
    expect(plan.trigger).toMatchObject({ compact: true, level: 'none', reason: 'pressure 8.5% of 20,000 tokens, lines 50/80%: below warning, but 1 digest(s) await their upgrade' });
    expect(ranges(plan.spans)).toEqual(FIVE_TURN_CHUNKS);
    expect(plan.dag.nodes.find((n) => n.id === 's5')?.compacted).toBe(true);
    expect(plan.tokensAfter).toBe(1700 - 10 * (500 - 125) + (5000 - 600));
  });
});
