/**
 * The fast replay (shared/replay/live.ts) against the reference replay (shared/replay/reference/:
 * each design's rule as plain loops at every call), through `checkReplay`: on every fixture
 * session × every strategy × several parameter points, and on generated sessions with random
 * parameters (fast-check). A fast path that prunes or caches wrongly fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixtureDb, sessionBySource, type FixtureDb } from '../helpers/fixture-sessions.js';
import { generatedParams, generatedSession } from '../helpers/generated-sessions.js';
import { listSessions } from '../../electron/store/sessions.js';
import { checkSessionReplay } from '../../electron/engine/replay-check.js';
import { checkReplay } from '../../shared/replay/check.js';
import { prepareStrategy, type PreparedStrategy } from '../../shared/strategies/index.js';
import { STRATEGIES, type StrategyName } from '../../shared/strategies/types.js';

/** Three or more points per strategy: the defaults and points that fire on the small fixtures. */
const POINTS: Record<StrategyName, Array<Record<string, unknown>>> = {
  dag: [{}, { tokenBudget: 20000 }, { tokenBudget: 5000, freshTailCount: 4, leafChunkTokens: 2000, contextMeasure: 'transcript' }, { tokenBudget: 8000, condensedMinFanout: 2, maxCondenseDepth: 1, triggerCount: 1 }],
  rolling: [{}, { replayTriggerTokens: 10000 }, { replayTriggerTokens: 4000, compactionCount: 80, contextMeasure: 'transcript' }],
  watermark: [{}, { softThresholdTokens: 3000, hardCapTokens: 8000 }, { softThresholdTokens: 2000, hardCapTokens: 6000, preserveRecentTurns: 2, contextMeasure: 'transcript' }, { softThresholdTokens: 1000, hardCapTokens: 5000, maxCostPerSessionUsd: 0 }],
  'two-line': [{}, { contextWindow: 20000 }, { contextWindow: 10000, profile: 1, contextMeasure: 'transcript' }, { contextWindow: 8000, minBatch: 3, keepLast: 4, chunkChars: 3000 }],
  masking: [{}, { maskWindow: 2 }, { maskWindow: 0 }],
  window: [{}, { maxTurns: 5 }, { keepFirst: 3, maxTurns: 2 }],
  forgetting: [{}, { maxSize: 20 }, { maxSize: 10, keepFirst: 2 }],
  codex: [{}, { contextWindow: 30000 }, { contextWindow: 12000, userMessageMaxTokens: 500, contextMeasure: 'transcript' }, { autoCompactTokenLimit: 8000, summaryMaxTokens: 500 }],
  'claude-code': [{}, { contextWindow: 50000 }, { contextWindow: 20000, reservedSummaryTokens: 2000, bufferTokens: 3000, contextMeasure: 'transcript' }, { contextWindow: 40000, summaryMaxTokens: 800, contextMeasure: 'calibrated' }],
};

describe('the fast replay equals the reference replay', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  for (const strategy of STRATEGIES) {
    it(`${strategy}: on every fixture session at ${POINTS[strategy].length} parameter points`, async () => {
      const disagreements: string[] = [];
      let firings = 0;
      for (const s of listSessions(f.db)) {
        for (const params of POINTS[strategy]) {
          const r = await checkSessionReplay(f.db, { sessionId: s.id, strategy, params });
          firings += r.reference.firings.length;
          if (!r.agree) disagreements.push(`session ${s.id} ${JSON.stringify(params)}: ${JSON.stringify(r.firstDisagreement)}`);
        }
      }
      expect(disagreements).toEqual([]);
      // The points are chosen so that the rule fires: an agreement on no firings proves little.
      expect(firings).toBeGreaterThan(10);
    });
  }

  it('on 280 generated sessions with random parameters (large turns, late and parallel results, the source compacting)', async () => {
    await fc.assert(
      fc.asyncProperty(generatedSession, fc.constantFrom(...STRATEGIES).chain((strategy) => fc.tuple(fc.constant(strategy), generatedParams[strategy])), fc.integer({ min: 0, max: 3 }), async (session, [strategy, params], commitDelayCalls) => {
        const r = await checkReplay({ prepared: prepareStrategy(strategy, params), ...session, commitDelayCalls });
        if (!r.agree) throw new Error(`${strategy} ${JSON.stringify(params)} delay ${commitDelayCalls}: ${JSON.stringify(r.firstDisagreement)}`);
      }),
      { numRuns: 280, seed: 20261201 },
    );
  }, 120_000);

  it('fails on a fast path that prunes a call where the rule fires (the check is not vacuous)', async () => {
    // A "headroom" of the kind the watermark skip had: some calls are not asked at all.
    const f2 = fixtureDb();
    try {
      const s = sessionBySource(f2, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
      const honest = await checkSessionReplay(f2.db, { sessionId: s.id, strategy: 'watermark', params: { softThresholdTokens: 3000, hardCapTokens: 8000 } });
      expect(honest.agree).toBe(true);
      const prepared = prepareStrategy('watermark', { softThresholdTokens: 3000, hardCapTokens: 8000 });
      const live = prepared.definition.live;
      let asked = 0;
      const pruned: PreparedStrategy = { ...prepared, definition: { ...prepared.definition, live: { ...live, mayFire: (m, p, st) => ++asked % 3 !== 0 && live.mayFire(m, p, st) } } };
      const { replayInputs } = await import('../../shared/replay/timeline.js');
      const { loadReplaySource } = await import('../../electron/engine/engine.js');
      const src = loadReplaySource(f2.db, s.id);
      const inputs = replayInputs(src);
      const r = await checkReplay({ prepared: pruned, metas: src.metas, calls: inputs.calls, model: inputs.model });
      expect(r.agree).toBe(false);
      expect(r.firstDisagreement?.what).toBe('firings');
    } finally {
      f2.close();
    }
  });
});
