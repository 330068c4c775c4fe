import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTurnMetas } from '../../electron/store/turns.js';
import { fixtureDb, sessionBySource, splitCycles, type FixtureDb } from '../helpers/fixture-sessions.js';
import { planDag, type DagParams } from '../../shared/strategies/dag.js';
import { planFor } from '../../shared/strategies/index.js';
import type { ExistingSummary, Plan } from '../../shared/strategies/types.js';
import { idsOf, metasOf } from '../helpers/synthetic-turns.js';

const P: DagParams = { contextThreshold: 0.75, tokenBudget: 50000, freshTailCount: 16, leafChunkTokens: 5000, condensedMinFanout: 4, maxCondenseDepth: -1, triggerCount: 0 };
const ua = (k: number) => 'ua'.repeat(k);
const ranges = (plan: Plan<DagParams>) => plan.spans.map((s) => [s.firstPosition, s.lastPosition]);

function summary(id: number, depth: number, first: number, last: number, tokenCount: number, extra: Partial<ExistingSummary> = {}): ExistingSummary {
  return { id, kind: depth === 0 ? 'leaf' : 'condensed', depth, tokenCount, charCount: tokenCount * 4, compacted: false, firstPosition: first, lastPosition: last, childIds: [], ...extra };
}

describe('dag planner: trigger', () => {
  it('compacts when the visible context exceeds budget × threshold', () => {
    const plan = planDag({ turns: metasOf(ua(20), { tokens: 1000 }), summaries: [], state: {}, params: P });
    expect(plan.tokensBefore).toBe(40000);
    expect(plan.trigger.compact).toBe(true);
    expect(plan.trigger.pressure).toBe(0.8);
    expect(plan.budget).toBe(50000);
  });

  it('does not compact at exactly the threshold, but still previews what a forced pass would do', () => {
    const plan = planDag({ turns: metasOf(ua(20), { tokens: 1000 }), summaries: [], state: {}, params: { ...P, contextThreshold: 0.8 } });
    expect(plan.trigger.compact).toBe(false);
    expect(plan.trigger.reason).toContain('no compaction needed');
    expect(plan.spans).toHaveLength(5);
  });

  it('counts uncompacted summaries instead of the turns they cover', () => {
    const plan = planDag({ turns: metasOf(ua(20), { tokens: 1000 }), summaries: [summary(1, 0, 0, 4, 500), summary(2, 0, 5, 9, 500)], state: {}, params: P });
    expect(plan.tokensBefore).toBe(31000);
    expect(plan.trigger.compact).toBe(false);
  });
});

describe('dag planner: leaf pass', () => {
  it('protects the fresh tail and chunks the evictable turns by leafChunkTokens', () => {
    const plan = planDag({ turns: metasOf(ua(20), { tokens: 1000 }), summaries: [], state: {}, params: P });
    expect(plan.boundaries).toEqual([{ kind: 'fresh-tail', position: 24, label: 'fresh tail: last 16 turns protected' }]);
    expect(ranges(plan)).toEqual([[0, 4], [5, 9], [10, 14], [15, 19], [20, 23]]);
    expect(plan.spans[0]).toEqual({ id: 'p0', purpose: 'leaf', firstPosition: 0, lastPosition: 4, turnIds: idsOf(0, 5), tokens: 5000, chars: 20000, targetTokens: 1200, priorSummaryId: null });
    expect(plan.spans[4].tokens).toBe(4000);
  });

  it('moves the fresh-tail start earlier so a tool cycle is never split', () => {
    // 23 = assistant tool_use, 24 = its result: a cut at 24 would split them
    const turns = metasOf(ua(11) + 'uc' + 'ra' + ua(7), { tokens: 1000 });
    const plan = planDag({ turns, summaries: [], state: {}, params: P });
    expect(plan.boundaries[0].position).toBe(23);
    expect(plan.boundaries[0].label).toBe('fresh tail: last 17 turns (16 asked, grown to keep a tool call with its result)');
    expect(Math.max(...plan.spans.map((s) => s.lastPosition))).toBe(22);
  });

  it('ends a chunk before a tool cycle that would straddle the cut', () => {
    const turns = metasOf('uauacr' + 'au'.repeat(17), { tokens: 1000 });
    const plan = planDag({ turns, summaries: [], state: {}, params: P });
    expect(ranges(plan)).toEqual([[0, 3], [4, 8], [9, 13], [14, 18], [19, 23]]);
  });

  it('makes one turn larger than the chunk size a chunk of its own', () => {
    const tokens = Array.from({ length: 40 }, (_, i) => (i === 2 ? 30000 : 1000));
    const plan = planDag({ turns: metasOf(ua(20), { tokens }), summaries: [], state: {}, params: P });
    expect(ranges(plan).slice(0, 3)).toEqual([[0, 1], [2, 2], [3, 7]]);
  });

  it('never puts a system turn in a span, but counts it in the visible context', () => {
    const tokens = [5000, ...Array.from({ length: 40 }, () => 1000)];
    const plan = planDag({ turns: metasOf('s' + ua(20), { tokens }), summaries: [], state: {}, params: P });
    expect(plan.tokensBefore).toBe(45000);
    expect(plan.spans[0].firstPosition).toBe(1);
    expect(plan.spans[0].turnIds).toEqual(idsOf(1, 6));
    expect(plan.spans.flatMap((s) => s.turnIds)).not.toContain(1000);
  });

  it('summarizes only turns not yet covered by a depth-0 summary, with the latest leaf as prior', () => {
    const plan = planDag({ turns: metasOf(ua(20), { tokens: 1000 }), summaries: [summary(1, 0, 0, 4, 500), summary(2, 0, 5, 9, 500)], state: {}, params: P });
    expect(ranges(plan)).toEqual([[10, 14], [15, 19], [20, 23]]);
    expect(plan.spans.map((s) => s.priorSummaryId)).toEqual([2, 2, 2]);
  });
});

describe('dag planner: condensation', () => {
  it('condenses all uncompacted summaries of a depth into one parent once fanout is reached', () => {
    const plan = planDag({ turns: metasOf(ua(20), { tokens: 1000 }), summaries: [], state: {}, params: P });
    expect(plan.condense).toEqual([{ id: 'p5', depth: 1, childIds: ['p0', 'p1', 'p2', 'p3', 'p4'], targetTokens: 2000 }]);
    expect(plan.dag.edges).toEqual(['p0', 'p1', 'p2', 'p3', 'p4'].map((c) => ({ source: 'p5', target: c })));
    expect(plan.dag.nodes.filter((n) => !n.compacted).map((n) => n.id)).toEqual(['p5']);
    // 40000 - 24000 turns + 5 × 1200 leaves = 22000; the leaves (6000) fold into 2000
    expect(plan.tokensAfter).toBe(18000);
  });

  it('folds existing and projected leaves together in chronological order', () => {
    const plan = planDag({ turns: metasOf(ua(20), { tokens: 1000 }), summaries: [summary(1, 0, 0, 4, 500), summary(2, 0, 5, 9, 500)], state: {}, params: P });
    expect(plan.condense).toEqual([{ id: 'p3', depth: 1, childIds: ['s1', 's2', 'p0', 'p1', 'p2'], targetTokens: 2000 }]);
  });

  const layered = () => ({
    turns: metasOf(ua(30), { tokens: 1000 }),
    summaries: [
      summary(1, 0, 0, 9, 1200, { compacted: true }),
      summary(2, 0, 10, 19, 1200, { compacted: true }),
      summary(3, 0, 20, 29, 1200, { compacted: true }),
      summary(10, 1, 0, 9, 2000, { childIds: [1] }),
      summary(11, 1, 10, 19, 2000, { childIds: [2] }),
      summary(12, 1, 20, 29, 2000, { childIds: [3] }),
    ],
    state: {},
  });

  it('repeats depth by depth while a depth has at least fanout summaries', () => {
    const plan = planDag({ ...layered(), params: { ...P, leafChunkTokens: 3000 } });
    expect(plan.tokensBefore).toBe(36000);
    expect(ranges(plan)).toEqual([[30, 32], [33, 35], [36, 38], [39, 41], [42, 43]]);
    expect(plan.spans.every((s) => s.priorSummaryId === 3)).toBe(true);
    expect(plan.condense).toEqual([
      { id: 'p5', depth: 1, childIds: ['p0', 'p1', 'p2', 'p3', 'p4'], targetTokens: 2000 },
      { id: 'p6', depth: 2, childIds: ['s10', 's11', 's12', 'p5'], targetTokens: 2000 },
    ]);
    expect(plan.dag.edges).toContainEqual({ source: 's10', target: 's1' });
    expect(plan.dag.nodes.find((n) => n.id === 's10')?.compacted).toBe(true);
    expect(plan.tokensAfter).toBe(18000);
  });

  it('stops at maxCondenseDepth, and 0 means leaves only', () => {
    const one = planDag({ ...layered(), params: { ...P, leafChunkTokens: 3000, maxCondenseDepth: 1, triggerCount: 0 } });
    expect(one.condense.map((c) => c.id)).toEqual(['p5']);
    expect(one.tokensAfter).toBe(24000);
    const none = planDag({ ...layered(), params: { ...P, leafChunkTokens: 3000, maxCondenseDepth: 0 } });
    expect(none.condense).toEqual([]);
  });

  it('stops at the first depth with fewer than fanout summaries', () => {
    const plan = planDag({ ...layered(), params: { ...P, leafChunkTokens: 5000 } });
    expect(plan.spans).toHaveLength(3);
    expect(plan.condense).toEqual([]);
  });
});

describe('dag planner: contract', () => {
  it('is deterministic', () => {
    const input = { turns: metasOf(ua(30), { tokens: 700 }), summaries: [summary(1, 0, 0, 9, 1200)], state: {}, params: { ...P, leafChunkTokens: 3000 } };
    expect(planDag(input)).toEqual(planDag(input));
  });

  it('resolves the spec defaults through the registry', () => {
    const plan = planFor('dag', { turns: metasOf(ua(20)), summaries: [], state: {}, params: {} });
    expect(plan.params).toEqual({ contextThreshold: 0.75, tokenBudget: 200000, freshTailCount: 16, leafChunkTokens: 20000, condensedMinFanout: 4, maxCondenseDepth: -1, triggerCount: 0, preMaskWindow: -1, contextMeasure: 0 });
    expect(() => planFor('dag', { turns: [], summaries: [], state: {}, params: { condensedMinFanout: 1 } })).toThrow(/condensedMinFanout/);
  });

  it('plans an empty session without spans', () => {
    const plan = planDag({ turns: [], summaries: [], state: {}, params: P });
    expect(plan.spans).toEqual([]);
    expect(plan.tokensBefore).toBe(0);
    expect(plan.trigger.compact).toBe(false);
  });
});

describe('dag planner on every real fixture session', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  const paramSets: DagParams[] = [
    { contextThreshold: 0.75, tokenBudget: 200000, freshTailCount: 16, leafChunkTokens: 20000, condensedMinFanout: 4, maxCondenseDepth: -1, triggerCount: 0 },
    { contextThreshold: 0.5, tokenBudget: 20000, freshTailCount: 4, leafChunkTokens: 1500, condensedMinFanout: 2, maxCondenseDepth: -1, triggerCount: 0 },
    { contextThreshold: 0.5, tokenBudget: 20000, freshTailCount: 1, leafChunkTokens: 300, condensedMinFanout: 3, maxCondenseDepth: 1, triggerCount: 0 },
  ];

  it('never summarizes the fresh tail or a system turn, covers every other turn once, and splits no tool cycle', () => {
    let spansSeen = 0;
    for (const s of f.sessions) {
      const metas = listTurnMetas(f.db, s.id);
      for (const params of paramSets) {
        const plan = planDag({ turns: metas, summaries: [], state: {}, params });
        const tail = plan.boundaries[0].position;
        expect(tail).toBeLessThanOrEqual(Math.max(0, metas.length - params.freshTailCount));
        const seen = new Set<number>();
        for (const span of plan.spans) {
          const positions = new Set(span.turnIds.map((id) => metas.find((m) => m.id === id)!.position));
          for (const p of positions) {
            expect(p).toBeLessThan(tail);
            expect(metas[p].role).not.toBe('system');
            expect(seen.has(p)).toBe(false);
            seen.add(p);
          }
          expect(splitCycles(f.db, s.id, positions)).toEqual([]);
          spansSeen++;
        }
        const evictable = metas.filter((m) => m.position < tail && m.role !== 'system').length;
        expect(seen.size).toBe(evictable);
        // fanout and depth rules of the projected DAG
        for (const c of plan.condense) {
          expect(c.childIds.length).toBeGreaterThanOrEqual(params.condensedMinFanout);
          if (params.maxCondenseDepth !== -1) expect(c.depth).toBeLessThanOrEqual(params.maxCondenseDepth);
          for (const child of c.childIds) expect(plan.dag.nodes.find((n) => n.id === child)!.depth).toBe(c.depth - 1);
        }
        expect(planDag({ turns: metas, summaries: [], state: {}, params })).toEqual(plan);
      }
    }
    expect(spansSeen).toBeGreaterThan(100);
  });

  it('plans the 306-turn spotter session: below the default trigger, compacting under a 100k budget', () => {
    const s = sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    const metas = listTurnMetas(f.db, s.id);
    expect(metas).toHaveLength(306);
    const byDefault = planDag({ turns: metas, summaries: [], state: {}, params: paramSets[0] });
    expect(byDefault.tokensBefore).toBe(140001);
    expect(byDefault.trigger.compact).toBe(false);
    const tight = planDag({ turns: metas, summaries: [], state: {}, params: { ...paramSets[0], tokenBudget: 100000 } });
    expect(tight.trigger.compact).toBe(true);
    expect(tight.trigger.pressure).toBe(1.40001);
    // the tail would start at 290, which answers the call at 289: it grows to 17 turns
    expect(tight.boundaries[0]).toEqual({ kind: 'fresh-tail', position: 289, label: 'fresh tail: last 17 turns (16 asked, grown to keep a tool call with its result)' });
    expect(tight.spans.map((x) => [x.firstPosition, x.lastPosition, x.tokens])).toEqual([
      [0, 4, 4041],
      [5, 14, 19759],
      [15, 42, 13206],
      [43, 44, 7089],
      [45, 48, 14797],
      [49, 94, 19778],
      [95, 164, 19890],
      [165, 226, 15175],
      [227, 274, 19881],
      [275, 288, 4278],
    ]);
    expect(tight.condense).toEqual([{ id: 'p10', depth: 1, childIds: ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'], targetTokens: 2000 }]);
    // 2107 tail tokens + one 2000-token parent
    expect(tight.tokensAfter).toBe(4107);
  });
});
