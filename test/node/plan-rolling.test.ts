import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTurnMetas } from '../../electron/store/turns.js';
import type { TurnMeta } from '../../shared/model/turn.js';
import { fixtureDb, sessionBySource, splitCycles, type FixtureDb } from '../helpers/fixture-sessions.js';
import { planRolling } from '../../shared/strategies/rolling.js';
import { planFor } from '../../shared/strategies/index.js';
import { ParamError } from '../../shared/strategies/params.js';
import type { ExistingSummary } from '../../shared/strategies/types.js';
import { idsOf, metasOf } from '../helpers/synthetic-turns.js';

const ua = (k: number) => 'ua'.repeat(k);
function rollingSummary(id: number, chars: number, last: number, tokens = Math.ceil(chars / 4)): ExistingSummary {
  return { id, kind: 'rolling', depth: 0, tokenCount: tokens, charCount: chars, compacted: false, firstPosition: 0, lastPosition: last, childIds: [] };
}

describe('rolling planner: the seed worked example', () => {
  // 100 turns of 100 characters each, compactionCount 50%.
  const turns = metasOf(ua(50), { tokens: 25, chars: 100 });

  it('first call: target = floor(10000 × 50%) = 5000 collects the first 50 turns', () => {
    const plan = planRolling({ turns, summaries: [], state: {}, params: { compactionCount: 50 } });
    expect(plan.trigger).toEqual({ compact: true, reason: 'collect 50 turns (5000 chars) to reach target 5000 = floor((0 summary + 10000 uncompacted chars) × 50%)' });
    expect(plan.spans).toHaveLength(1);
    expect(plan.spans[0]).toEqual({ id: 'p0', purpose: 'rolling', firstPosition: 0, lastPosition: 49, turnIds: idsOf(0, 50), tokens: 1250, chars: 5000, targetTokens: 313, priorSummaryId: null });
    expect(plan.boundaries.map((b) => b.position)).toEqual([0, 50]);
  });

  it('second call compacts fewer turns because the summary is shorter than what it replaced', () => {
    // The first call's 5000 characters became a 1000-character summary.
    const plan = planRolling({ turns, summaries: [rollingSummary(7, 1000, 49)], state: { pointer: 50, rollingSummaryId: 7 }, params: { compactionCount: 50 } });
    // total = 1000 + 5000 = 6000, target 3000: 30 turns, not 50
    expect(plan.spans[0].turnIds).toEqual(idsOf(50, 80));
    expect(plan.spans[0].priorSummaryId).toBe(7);
    expect(plan.trigger.reason).toBe('collect 30 turns (3000 chars) to reach target 3000 = floor((1000 summary + 5000 uncompacted chars) × 50%)');
    expect(plan.dag.edges).toEqual([{ source: 'p0', target: 's7' }]);
    expect(plan.dag.nodes.find((n) => n.id === 's7')?.compacted).toBe(true);
    expect(plan.dag.nodes.find((n) => n.id === 'p0')).toMatchObject({ depth: 1, firstPosition: 0, lastPosition: 79 });
    // before: 250 summary + 50 × 25 turns; after: 30 turns become a summary of at most min(2000, ceil((250+750)/4)) = 250
    expect(plan.tokensBefore).toBe(1500);
    expect(plan.tokensAfter).toBe(1500 - 250 - 750 + 250);
  });
});

describe('rolling planner: the call rule', () => {
  it('includes the turn that crosses the target', () => {
    const plan = planRolling({ turns: metasOf(ua(50), { chars: 100 }), summaries: [], state: {}, params: { compactionCount: 51 } });
    // target floor(10000 × 51%) = 5100: 51 turns reach it exactly
    expect(plan.spans[0].turnIds).toHaveLength(51);
    const crossing = planRolling({ turns: metasOf(ua(50), { chars: 100 }), summaries: [], state: {}, params: { compactionCount: 3 } });
    // target floor(10000 × 3%) = 300: the third 100-character turn reaches it
    expect(crossing.spans[0].turnIds).toHaveLength(3);
    const odd = planRolling({ turns: metasOf(ua(2), { chars: [100, 300, 100, 100] }), summaries: [], state: {}, params: { compactionCount: 20 } });
    // total 600, target 120: the first turn (100) does not reach it, the second crosses it and is included
    expect(odd.spans[0].turnIds).toEqual(idsOf(0, 2));
  });

  it('takes the tool result with a crossing tool_use, and the pointer counts it', () => {
    // 0 u, 1 c (tool_use), 2 r (its result), 3 a
    const plan = planRolling({ turns: metasOf('ucra', { chars: 100 }), summaries: [], state: {}, params: { compactionCount: 50 } });
    // target 200 is reached by turn 1 (the call); its result at 2 is taken too
    expect(plan.spans[0].turnIds).toEqual(idsOf(0, 3));
    expect(plan.trigger.reason).toContain('extended by 1 turn(s) to keep a tool cycle whole');
    expect(plan.boundaries[1]).toEqual({ kind: 'pointer', position: 3, label: 'pointer after this call: 3 turns summarized' });
  });

  it('counts the pointer in non-system turns', () => {
    const turns = metasOf('s' + ua(5), { chars: 100 });
    const plan = planRolling({ turns, summaries: [rollingSummary(3, 100, 2)], state: { pointer: 2, rollingSummaryId: 3 }, params: { compactionCount: 50 } });
    // pointer 2 = conversation turns at positions 1 and 2; uncompacted start at position 3
    expect(plan.boundaries[0]).toEqual({ kind: 'pointer', position: 3, label: 'pointer: 2 turns summarized' });
    // total = 100 + 800 = 900, target 450: 5 turns (500) reach it
    expect(plan.spans[0].turnIds).toEqual(idsOf(3, 8));
    expect(plan.spans[0].turnIds).not.toContain(1000);
  });

  it('is already up to date with nothing new, an empty target, or nothing collected', () => {
    const turns = metasOf(ua(2), { chars: 100 });
    const done = planRolling({ turns, summaries: [rollingSummary(1, 50, 3)], state: { pointer: 4, rollingSummaryId: 1 }, params: { compactionCount: 50 } });
    expect(done.trigger).toEqual({ compact: false, reason: 'already up to date: nothing new since the pointer' });
    expect(done.spans).toEqual([]);
    expect(done.tokensAfter).toBe(done.tokensBefore);
    const tiny = planRolling({ turns: metasOf('u', { chars: 1 }), summaries: [], state: {}, params: { compactionCount: 50 } });
    expect(tiny.trigger).toEqual({ compact: false, reason: 'already up to date: empty target (floor(1 × 50%) = 0)' });
    const onlySystem = planRolling({ turns: metasOf('ss', { chars: 100 }), summaries: [], state: {}, params: { compactionCount: 50 } });
    expect(onlySystem.trigger.compact).toBe(false);
  });

  it('rejects compactionCount outside 1-99', () => {
    const input = { turns: metasOf(ua(2)), summaries: [], state: {} };
    for (const bad of [0, 100, 150, -5, 12.5]) {
      expect(() => planFor('rolling', { ...input, params: { compactionCount: bad } })).toThrow(ParamError);
      expect(() => planRolling({ ...input, params: { compactionCount: bad } })).toThrow(ParamError);
    }
    expect(planFor('rolling', { ...input, params: {} }).params).toEqual({ compactionCount: 50, replayTriggerTokens: 150000, preMaskWindow: -1, contextMeasure: 0 });
  });

  it('is deterministic', () => {
    const input = { turns: metasOf(ua(40), { chars: 77 }), summaries: [rollingSummary(2, 300, 9)], state: { pointer: 10, rollingSummaryId: 2 }, params: { compactionCount: 35 } };
    expect(planRolling(input)).toEqual(planRolling(input));
  });
});

describe('rolling planner on every real fixture session', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  /** Calls the planner until it is up to date, each summary a fifth of what it folded (min 1 char). */
  function rollToTheEnd(metas: TurnMeta[], pct: number) {
    const summaries: ExistingSummary[] = [];
    let state: { pointer?: number; rollingSummaryId?: number } = {};
    const batches: number[][] = [];
    for (let call = 0; call < 200; call++) {
      const plan = planRolling({ turns: metas, summaries, state, params: { compactionCount: pct } });
      if (!plan.trigger.compact) return { batches, last: plan };
      const span = plan.spans[0];
      batches.push(span.turnIds);
      const prior = summaries.find((s) => s.id === state.rollingSummaryId);
      const chars = Math.max(1, Math.floor(((prior?.charCount ?? 0) + span.chars) / 5));
      if (prior) prior.compacted = true;
      const id = summaries.length + 1;
      summaries.push({ id, kind: 'rolling', depth: prior ? prior.depth + 1 : 0, tokenCount: Math.ceil(chars / 4), charCount: chars, compacted: false, firstPosition: 0, lastPosition: span.lastPosition, childIds: prior ? [prior.id] : [] });
      state = { pointer: (state.pointer ?? 0) + span.turnIds.length, rollingSummaryId: id };
    }
    throw new Error('rolling never reached up to date');
  }

  it('advances the pointer over every conversation turn in order, never splitting a tool cycle', () => {
    let calls = 0;
    for (const s of f.sessions) {
      const metas = listTurnMetas(f.db, s.id);
      const idToPos = new Map(metas.map((m) => [m.id, m.position]));
      for (const pct of [1, 20, 50, 99]) {
        const { batches, last } = rollToTheEnd(metas, pct);
        const all = batches.flat();
        expect(all).toEqual(metas.filter((m) => m.role !== 'system').map((m) => m.id).slice(0, all.length));
        for (const b of batches) expect(splitCycles(f.db, s.id, new Set(b.map((id) => idToPos.get(id)!)))).toEqual([]);
        expect(last.trigger.reason).toMatch(/^already up to date/);
        calls += batches.length;
      }
    }
    expect(calls).toBeGreaterThan(200);
  });

  it('follows the call rule on the 306-turn spotter session', () => {
    const s = sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    const metas = listTurnMetas(f.db, s.id);
    const first = planRolling({ turns: metas, summaries: [], state: {}, params: { compactionCount: 50 } });
    expect(first.trigger.reason).toBe('collect 71 turns (245295 chars) to reach target 236343 = floor((0 summary + 472686 uncompacted chars) × 50%)');
    expect(first.spans[0].lastPosition).toBe(70);
    // the crossing turn is the last one: without it the batch is short of the target
    expect(245295 - metas[70].charCount).toBeLessThan(236343);
    const summary: ExistingSummary = { id: 1, kind: 'rolling', depth: 0, tokenCount: 500, charCount: 2000, compacted: false, firstPosition: 0, lastPosition: 70, childIds: [] };
    const second = planRolling({ turns: metas, summaries: [summary], state: { pointer: 71, rollingSummaryId: 1 }, params: { compactionCount: 50 } });
    expect(second.trigger.reason).toBe('collect 120 turns (117605 chars) to reach target 114695 = floor((2000 summary + 227391 uncompacted chars) × 50%)');
    expect([second.spans[0].firstPosition, second.spans[0].lastPosition]).toEqual([71, 190]);
    // a real transcript's turns are uneven: with summaries a fifth of their input the batches run 71, 154, 50, 25, 6 turns
    expect(rollToTheEnd(metas, 50).batches.map((b) => b.length)).toEqual([71, 154, 50, 25, 6]);
  });
});
