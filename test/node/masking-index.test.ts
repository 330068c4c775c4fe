/**
 * Masking on the span index's cycle arrays (O(log n) per plan, so a live replay can mask
 * before every tool cycle) against the rule written out directly, on every real fixture
 * session, several windows and prefixes of each (a live replay plans on prefixes that share
 * the session's index through `prefixIndex`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDb, type FixtureDb } from '../helpers/fixture-sessions.js';
import { listTurnMetas } from '../../electron/store/turns.js';
import { maskBoundaryOf, planMasking } from '../../shared/strategies/masking.js';
import { buildSpanIndex, prefixIndex } from '../../shared/strategies/spans.js';
import type { TurnMeta } from '../../shared/model/turn.js';

/** The rule as the masking strategy states it, in one plain pass over the turns. */
function reference(turns: readonly TurnMeta[], maskWindow: number) {
  const calls: number[] = [];
  const seen = new Set<number>();
  for (const t of turns) if (t.cycleStart < t.position && t.cycleStart >= 0 && !seen.has(t.cycleStart)) seen.add(t.cycleStart);
  for (const p of [...seen].sort((a, b) => a - b)) calls.push(p);
  const boundary = calls.length <= maskWindow ? null : maskWindow <= 0 ? turns.length : calls[calls.length - maskWindow];
  const masked = boundary === null ? [] : turns.filter((t) => t.cycleStart < t.position && t.cycleStart < boundary);
  return { boundary, ids: masked.map((t) => t.id), tokens: masked.reduce((n, t) => n + t.tokenCount, 0), chars: masked.reduce((n, t) => n + t.charCount, 0) };
}

let f: FixtureDb;
beforeAll(() => {
  f = fixtureDb();
});
afterAll(() => f.close());

describe('masking on the cycle index', () => {
  it('plans exactly what the rule says on every fixture session, window and prefix', () => {
    let checked = 0;
    for (const s of f.sessions) {
      const metas = listTurnMetas(f.db, s.id);
      const full = buildSpanIndex(metas);
      const ends = [...new Set([metas.length, Math.floor(metas.length / 2), Math.floor(metas.length / 3), 7, 1].filter((e) => e >= 1 && e <= metas.length))];
      for (const end of ends) {
        const prefix = metas.slice(0, end);
        if (end < metas.length) prefixIndex(full, prefix);
        for (const w of [0, 1, 3, 10]) {
          const want = reference(prefix, w);
          expect(maskBoundaryOf(prefix, w)).toBe(want.boundary);
          const plan = planMasking({ turns: prefix, summaries: [], state: {}, params: { maskWindow: w } });
          const span = plan.spans[0];
          expect(span?.turnIds ?? []).toEqual(want.ids);
          expect(span?.tokens ?? 0).toBe(want.tokens);
          expect(span?.chars ?? 0).toBe(want.chars);
          if (span) expect([span.firstPosition, span.lastPosition]).toEqual([metas.find((m) => m.id === want.ids[0])!.position, metas.find((m) => m.id === want.ids[want.ids.length - 1])!.position]);
          checked++;
        }
      }
    }
    // 30 fixture sessions, up to 5 prefixes each, 4 windows.
    expect(checked).toBeGreaterThan(300);
  });

  it('plans what the rule says where calls are answered late, out of order or by several results, on every prefix', () => {
    // Hand-made sessions (the fixtures answer almost every call at once): each assistant turn
    // makes 0-3 calls; their results come at once, some turns later, or after newer calls' results.
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let lateSeen = 0;
    let outOfOrderSeen = 0;
    for (let session = 0; session < 12; session++) {
      const metas: TurnMeta[] = [];
      const waiting: number[] = [];
      const push = (role: TurnMeta['role'], cycleStart?: number) => {
        const position = metas.length;
        metas.push({ id: 1000 * session + position, position, role, charCount: 40 + position, tokenCount: 10 + (position % 7), cycleStart: cycleStart ?? position });
      };
      while (metas.length < 120) {
        push('assistant');
        const call = metas.length - 1;
        for (let c = Math.floor(rand() * 3); c > 0; c--) waiting.push(call);
        // Answer some waiting calls now, in a shuffled order (a late one is answered after newer ones).
        const now = waiting.filter(() => rand() < 0.6);
        for (const w of now.sort(() => rand() - 0.5)) {
          waiting.splice(waiting.indexOf(w), 1);
          if (w < call) lateSeen++;
          push('tool', w);
        }
        if (now.length > 1 && now.some((w, i) => i > 0 && w < now[i - 1])) outOfOrderSeen++;
        if (rand() < 0.3) push('user');
      }
      const full = buildSpanIndex(metas);
      for (let end = 1; end <= metas.length; end++) {
        const prefix = metas.slice(0, end);
        if (end < metas.length) prefixIndex(full, prefix);
        for (const w of [0, 1, 2, 5]) {
          const want = reference(prefix, w);
          expect(maskBoundaryOf(prefix, w)).toBe(want.boundary);
          const span = planMasking({ turns: prefix, summaries: [], state: {}, params: { maskWindow: w } }).spans[0];
          expect(span?.turnIds ?? []).toEqual(want.ids);
          expect(span?.tokens ?? 0).toBe(want.tokens);
        }
      }
    }
    // The sessions did exercise the slow paths.
    expect(lateSeen).toBeGreaterThan(50);
    expect(outOfOrderSeen).toBeGreaterThan(10);
  });
});
