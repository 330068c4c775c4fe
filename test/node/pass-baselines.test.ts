import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSession, runCompaction } from '../../electron/engine/engine.js';
import { listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { getVariant, listSummaries } from '../../electron/store/variants.js';
import { countTokens } from '../../electron/tokenizer.js';
import { buildReplay, validateMessages } from '../../shared/replay/index.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import { fixtureDb, sessionBySource, splitCycles, turnsDump, type FixtureDb } from '../helpers/fixture-sessions.js';

const SETTINGS: Array<{ strategy: StrategyName; params: Record<string, number> }> = [
  { strategy: 'masking', params: { maskWindow: 2 } },
  { strategy: 'window', params: { keepFirst: 1, maxTurns: 4 } },
  { strategy: 'forgetting', params: { maxSize: 8, keepFirst: 1 } },
];

describe('model-free passes through the engine on every real fixture session', () => {
  let f: FixtureDb;
  let before: string;
  beforeAll(() => {
    f = fixtureDb();
    before = turnsDump(f.db);
  });
  afterAll(() => f.close());

  it('record what the model no longer sees in the state, write no summary, call no summarizer', async () => {
    let completed = 0;
    for (const s of f.sessions) {
      const metas = listTurnMetas(f.db, s.id);
      for (const { strategy, params } of SETTINGS) {
        const plan = planSession(f.db, { sessionId: s.id, strategy, params });
        const r = await runCompaction(f.db, { sessionId: s.id, strategy, params });
        expect(r.error).toBeNull();
        expect(r.status).toBe(plan.trigger.compact ? 'completed' : 'skipped');
        expect(r.stats.summarizerCalls).toBe(0);
        expect(listSummaries(f.db, r.variantId)).toEqual([]);
        const v = getVariant(f.db, r.variantId)!;
        if (r.status === 'skipped') {
          expect(v.state).toEqual({});
          continue;
        }
        completed++;
        if (strategy === 'masking') {
          expect(v.state).toEqual({ maskBoundary: plan.boundaries[0].position });
          expect(r.stats.toolResultTurnsMasked).toBe(plan.spans[0].turnIds.length);
        } else {
          const ranges = v.state.droppedRanges!;
          expect(ranges).toEqual([[plan.spans[0].firstPosition, plan.spans[0].lastPosition]]);
          const dropped = new Set<number>();
          for (const [a, b] of ranges) for (let p = a; p <= b; p++) if (metas[p].role !== 'system') dropped.add(p);
          expect(dropped.size).toBe(r.stats.turnsDropped);
          expect(splitCycles(f.db, s.id, dropped)).toEqual([]);
        }
        // the replay honours the state and stays valid for both message rules
        const replay = buildReplay({ strategy, turns: listTurns(f.db, s.id), summaries: [], state: v.state, params: v.params, countTokens: (t) => countTokens(t) });
        expect(validateMessages(replay.messages, 'openai')).toEqual([]);
        expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);
        // (masking can grow a session whose old results are shorter than the placeholder: the published design masks them all)
        if (strategy !== 'masking') expect(r.stats.tokensAfter).toBeLessThan(Number(r.stats.tokensBefore));
      }
    }
    expect(completed).toBeGreaterThan(40);
    expect(turnsDump(f.db)).toBe(before);
  });

  it('forgets again on the condensed history, merging the dropped ranges', async () => {
    const s = sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    const params = { maxSize: 100, keepFirst: 1 };
    const first = await runCompaction(f.db, { sessionId: s.id, strategy: 'forgetting', params });
    expect(first.status).toBe('completed');
    expect(first.stats).toMatchObject({ turnsDropped: 256, droppedRanges: [[1, 256]] });
    // 50 turns remain: at most maxSize, so the next pass has nothing to forget
    const second = await runCompaction(f.db, { sessionId: s.id, strategy: 'forgetting', params });
    expect(second.status).toBe('skipped');
    expect(second.stats.reason).toBe('history of 50 turns <= maxSize 100');
    const window = await runCompaction(f.db, { sessionId: s.id, strategy: 'window', params: {} });
    expect(window.stats).toMatchObject({ turnsDropped: 294, droppedRanges: [[1, 294]] });
    const masking = await runCompaction(f.db, { sessionId: s.id, strategy: 'masking', params: {} });
    expect(masking.stats).toMatchObject({ maskBoundary: 281, toolResultTurnsMasked: 139 });
  });
});
