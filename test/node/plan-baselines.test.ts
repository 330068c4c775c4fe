import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listToolCycles, listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { fixtureDb, sessionBySource, splitCycles, type FixtureDb } from '../helpers/fixture-sessions.js';
import { maskBoundaryOf, maskToolResults, planMasking } from '../../shared/strategies/masking.js';
import { planWindow } from '../../shared/strategies/window.js';
import { droppedRangesAfter, planForgetting } from '../../shared/strategies/forgetting.js';
import { planFor } from '../../shared/strategies/index.js';
import { ParamError } from '../../shared/strategies/params.js';
import type { ContentBlock, Turn } from '../../shared/model/turn.js';
import { blocksToText } from '../../shared/model/turn.js';
import { idsOf, metasOf } from '../helpers/synthetic-turns.js';

const ua = (k: number) => 'ua'.repeat(k);

describe('masking planner', () => {
  // 0 u, calls at 1,3,...,23, results at 2,4,...,24, 25 a: twelve tool cycles
  const turns = metasOf('u' + 'cr'.repeat(12) + 'a', { tokens: 100 });

  it('masks the tool results older than the last maskWindow tool cycles', () => {
    const plan = planMasking({ turns, summaries: [], state: {}, params: { maskWindow: 10 } });
    expect(maskBoundaryOf(turns, 10)).toBe(5);
    expect(plan.boundaries).toEqual([{ kind: 'mask-window', position: 5, label: 'tool results of the last 10 tool cycles kept, older ones masked' }]);
    expect(plan.spans).toEqual([{ id: 'p0', purpose: 'mask', firstPosition: 2, lastPosition: 4, turnIds: [1002, 1004], tokens: 200, chars: 800, targetTokens: 32 }]);
    expect(plan.tokensBefore).toBe(2600);
    expect(plan.tokensAfter).toBe(2600 - 200 + 32);
    expect(plan.trigger.compact).toBe(true);
  });

  it('masks nothing while there are at most maskWindow tool cycles', () => {
    const plan = planMasking({ turns, summaries: [], state: {}, params: { maskWindow: 12 } });
    expect(plan.trigger).toEqual({ compact: false, reason: 'nothing to mask: at most 12 tool cycles' });
    expect(plan.spans).toEqual([]);
    expect(plan.boundaries).toEqual([]);
  });

  it('masks every tool result with maskWindow 0', () => {
    const plan = planMasking({ turns, summaries: [], state: {}, params: { maskWindow: 0 } });
    expect(plan.spans[0].turnIds).toEqual(Array.from({ length: 12 }, (_, i) => 1002 + 2 * i));
  });

  it('uses the default window of 10 from the registry', () => {
    expect(planFor('masking', { turns, summaries: [], state: {}, params: {} }).params).toEqual({ maskWindow: 10 });
  });
});

describe('maskToolResults (the replay helper)', () => {
  const turn = (position: number, role: Turn['role'], blocks: ContentBlock[]): Turn => {
    const text = blocksToText(blocks);
    return { id: 500 + position, sessionId: 1, position, role, blocks, charCount: text.length, tokenCount: 10, timestamp: null, model: null, agentId: null, sourceIds: [] };
  };
  const session: Turn[] = [turn(0, 'user', [{ type: 'text', text: 'fix the bug' }])];
  for (let k = 0; k < 3; k++) {
    session.push(turn(session.length, 'assistant', [{ type: 'text', text: `step ${k}` }, { type: 'tool_use', id: `t${k}`, name: k === 0 ? 'Bash' : 'Read', input: { k } }]));
    session.push(turn(session.length, 'user', [{ type: 'tool_result', tool_use_id: `t${k}`, content: 'x'.repeat(1000 + k), is_error: k === 0 }]));
  }
  const snapshot = JSON.stringify(session);

  it('replaces old results by a placeholder naming the tool and the size removed, without mutating', () => {
    const masked = maskToolResults(session, 2);
    expect(JSON.stringify(session)).toBe(snapshot);
    expect(masked[2].blocks).toEqual([{ type: 'tool_result', tool_use_id: 't0', content: '[tool result masked: Bash output, 1000 chars removed]', is_error: true }]);
    expect(masked[2].charCount).toBe('[tool result masked: Bash output, 1000 chars removed]'.length);
    expect(masked[2]).not.toBe(session[2]);
    expect(masked[4]).toBe(session[4]);
    expect(masked[6]).toBe(session[6]);
    expect(masked[1]).toBe(session[1]);
  });

  it('agrees with the planner on which turns are masked', () => {
    const plan = planMasking({ turns: session.map((t) => ({ id: t.id, position: t.position, role: t.role, charCount: t.charCount, tokenCount: t.tokenCount, cycleStart: t.blocks.some((b) => b.type === 'tool_result') ? t.position - 1 : t.position })), summaries: [], state: {}, params: { maskWindow: 1 } });
    const masked = maskToolResults(session, 1, (text) => text.length);
    const changed = masked.filter((t, i) => t !== session[i]).map((t) => t.id);
    expect(changed).toEqual(plan.spans[0].turnIds);
    expect(masked[4].tokenCount).toBe(masked[4].charCount);
  });
});

describe('window planner', () => {
  it('keeps the first keepFirst and the last maxTurns conversation turns', () => {
    // system + 30 conversation turns
    const turns = metasOf('s' + ua(15));
    const plan = planWindow({ turns, summaries: [], state: {}, params: { keepFirst: 1, maxTurns: 10 } });
    expect(plan.spans).toEqual([{ id: 'p0', purpose: 'drop', firstPosition: 2, lastPosition: 20, turnIds: idsOf(2, 21), tokens: 1900, chars: 7600, targetTokens: 0 }]);
    expect(plan.boundaries).toEqual([
      { kind: 'kept-window', position: 2, label: 'first 1 turn kept (keepFirst)' },
      { kind: 'kept-window', position: 21, label: 'last 10 turns kept (maxTurns)' },
    ]);
    expect(plan.tokensBefore).toBe(3100);
    expect(plan.tokensAfter).toBe(1200);
  });

  it('keeps tool cycles whole at both edges by keeping a little more', () => {
    // head: turn 1 is a call answered at 2; tail: the first kept turn (20) answers a call at 19
    const turns = metasOf('ucr' + ua(8) + 'cr' + ua(4) + 'a');
    expect(turns[20].cycleStart).toBe(19);
    const plan = planWindow({ turns, summaries: [], state: {}, params: { keepFirst: 2, maxTurns: 10 } });
    // keepFirst 2 would cut between 1 and 2: the head grows to 3; the tail start moves from 20 to 19
    expect(plan.boundaries.map((b) => b.position)).toEqual([3, 19]);
    expect(plan.spans[0].turnIds).toEqual(idsOf(3, 19));
  });

  it('drops nothing while the session fits', () => {
    const plan = planWindow({ turns: metasOf(ua(5)), summaries: [], state: {}, params: { keepFirst: 1, maxTurns: 10 } });
    expect(plan.trigger).toEqual({ compact: false, reason: '10 turns fit in the window (first 1 + last 10)' });
  });

  it('uses the OpenHands RecentEventsCondenser defaults', () => {
    expect(planFor('window', { turns: [], summaries: [], state: {}, params: {} }).params).toEqual({ keepFirst: 1, maxTurns: 10 });
  });
});

describe('forgetting planner', () => {
  it('forgets down to half of maxSize once the history exceeds it', () => {
    const turns = metasOf('s' + 'u' + ua(50)); // system + 101 conversation turns
    const plan = planForgetting({ turns, summaries: [], state: {}, params: { maxSize: 100, keepFirst: 1 } });
    // keep conversation turn 0 (position 1) and the last 50 - 1 = 49 (positions 53..101)
    expect(plan.spans[0].firstPosition).toBe(2);
    expect(plan.spans[0].lastPosition).toBe(52);
    expect(plan.spans[0].turnIds).toEqual(idsOf(2, 53));
    expect(droppedRangesAfter(plan, [])).toEqual([[2, 52]]);
  });

  it('does nothing at exactly maxSize', () => {
    const plan = planForgetting({ turns: metasOf(ua(50)), summaries: [], state: {}, params: { maxSize: 100, keepFirst: 1 } });
    expect(plan.trigger.compact).toBe(false);
  });

  it('works on the condensed view: the next forgetting starts after the head and merges ranges', () => {
    // 151 conversation turns; positions 1..50 already dropped: the view holds 101 turns
    const turns = metasOf('u' + ua(75));
    const state = { droppedRanges: [[1, 50]] as Array<[number, number]> };
    const plan = planForgetting({ turns, summaries: [], state, params: { maxSize: 100, keepFirst: 1 } });
    expect(plan.tokensBefore).toBe(10100);
    // view = [0, 51..150]; keep 0 and the last 49 (102..150): forget 51..101
    expect(plan.spans[0].turnIds).toEqual(idsOf(51, 102));
    expect(plan.tokensAfter).toBe(10100 - 5100);
    expect(droppedRangesAfter(plan, state.droppedRanges)).toEqual([[1, 101]]);
  });

  it('rejects keepFirst of half maxSize or more, as OpenHands does', () => {
    expect(() => planForgetting({ turns: [], summaries: [], state: {}, params: { maxSize: 10, keepFirst: 5 } })).toThrow(ParamError);
    expect(planFor('forgetting', { turns: [], summaries: [], state: {}, params: {} }).params).toEqual({ maxSize: 100, keepFirst: 1 });
  });
});

describe('model-free baselines on every real fixture session', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  it('masking: the replay helper masks exactly the turns the planner lists, only results of calls before the boundary', () => {
    let maskedTurns = 0;
    for (const s of f.sessions) {
      const turns = listTurns(f.db, s.id);
      const metas = listTurnMetas(f.db, s.id);
      for (const maskWindow of [0, 1, 3, 10]) {
        const plan = planMasking({ turns: metas, summaries: [], state: {}, params: { maskWindow } });
        const masked = maskToolResults(turns, maskWindow);
        const changed = masked.filter((t, i) => t !== turns[i]).map((t) => t.id);
        expect(changed).toEqual(plan.spans[0]?.turnIds ?? []);
        const boundary = maskBoundaryOf(metas, maskWindow);
        for (const c of listToolCycles(f.db, s.id)) {
          const block = masked[c.resultPosition].blocks.find((b) => b.type === 'tool_result' && b.tool_use_id === c.toolUseId);
          const isMasked = block?.type === 'tool_result' && block.content.startsWith('[tool result masked: ');
          expect(isMasked).toBe(boundary !== null && c.usePosition < boundary);
        }
        maskedTurns += changed.length;
      }
    }
    expect(maskedTurns).toBeGreaterThan(100);
  });

  it('window and forgetting drop no system turn, keep the window, and split no tool cycle', () => {
    let drops = 0;
    for (const s of f.sessions) {
      const metas = listTurnMetas(f.db, s.id);
      const conv = metas.filter((m) => m.role !== 'system').length;
      const idToPos = new Map(metas.map((m) => [m.id, m.position]));
      for (const [keepFirst, maxTurns] of [[1, 10], [0, 3], [2, 5]]) {
        const plan = planWindow({ turns: metas, summaries: [], state: {}, params: { keepFirst, maxTurns } });
        const dropped = new Set((plan.spans[0]?.turnIds ?? []).map((id) => idToPos.get(id)!));
        expect(splitCycles(f.db, s.id, dropped)).toEqual([]);
        for (const p of dropped) expect(metas[p].role).not.toBe('system');
        expect(conv - dropped.size).toBeGreaterThanOrEqual(Math.min(conv, keepFirst + maxTurns));
        drops += dropped.size > 0 ? 1 : 0;
      }
      // forgetting, pass after pass as the history grows: replay the growth turn by turn
      for (const [maxSize, keepFirst] of [[10, 1], [6, 0], [20, 2]]) {
        let state: { droppedRanges?: Array<[number, number]> } = {};
        for (let n = 1; n <= metas.length; n++) {
          const prefix = metas.slice(0, n);
          const plan = planForgetting({ turns: prefix, summaries: [], state, params: { maxSize, keepFirst } });
          if (!plan.trigger.compact) continue;
          state = { droppedRanges: droppedRangesAfter(plan, state.droppedRanges ?? []) };
          drops++;
        }
        const dropped = new Set<number>();
        for (const [a, b] of state.droppedRanges ?? []) for (let p = a; p <= b; p++) if (metas[p].role !== 'system') dropped.add(p);
        expect(splitCycles(f.db, s.id, dropped)).toEqual([]);
        // the first keepFirst conversation turns are never forgotten
        const head = metas.filter((m) => m.role !== 'system').slice(0, keepFirst);
        for (const m of head) expect(dropped.has(m.position)).toBe(false);
      }
    }
    expect(drops).toBeGreaterThan(50);
  });

  it('windows the 306-turn spotter session with the OpenHands defaults', () => {
    const s = sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    const metas = listTurnMetas(f.db, s.id);
    const plan = planFor('window', { turns: metas, summaries: [], state: {}, params: {} });
    // the last 10 would start at 296, which answers the call at 295: 11 are kept
    expect(metas[296].cycleStart).toBe(295);
    expect(plan.boundaries).toEqual([
      { kind: 'kept-window', position: 1, label: 'first 1 turn kept (keepFirst)' },
      { kind: 'kept-window', position: 295, label: 'last 11 turns kept (maxTurns 10, grown to keep a tool call with its result)' },
    ]);
    expect(plan.spans[0].turnIds).toHaveLength(294);
    expect([plan.tokensBefore, plan.tokensAfter]).toEqual([140001, 735]);
    // forgetting: 306 > 100 turns, keep 1 + (50 - 1) = 50
    const forget = planFor('forgetting', { turns: metas, summaries: [], state: {}, params: {} });
    expect(forget.boundaries.map((b) => b.position)).toEqual([1, 257]);
    expect(forget.spans[0].turnIds).toHaveLength(256);
    expect(forget.tokensAfter).toBe(13665);
    // masking: results of all but the last 10 tool cycles
    const mask = planFor('masking', { turns: metas, summaries: [], state: {}, params: {} });
    expect(mask.boundaries[0].position).toBe(281);
    expect(mask.spans[0].turnIds).toHaveLength(139);
    expect(mask.tokensAfter).toBe(37881);
  });
});
