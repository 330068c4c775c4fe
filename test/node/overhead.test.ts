/**
 * Overhead (shared/usage/overhead.ts): the per-session fit reported ≈ a + b × transcript,
 * and THE CHECK of the live replay's context model: on the fixture session Claude Code compacted, the app's context
 * estimate at the call before the compaction is within 5% of Claude Code's preTokens.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { sessionUsage } from '../../electron/services/session-views.js';
import { listExternalCompactions } from '../../electron/store/turns.js';
import { contextEstimate, DEFAULT_OVERHEAD_TOKENS, fitOverheadPoints, fitSessionOverhead, transcriptTokensBefore } from '../../shared/usage/overhead.js';
import { reportedContext, type ModelCallUsage } from '../../shared/usage/types.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

function call(position: number, inputTokens: number | null, extra: Partial<ModelCallUsage> = {}): ModelCallUsage {
  return { position, turnId: position + 1, messageId: null, model: null, timestamp: null, inputTokens, cacheWrite5mTokens: null, cacheWrite1hTokens: null, cacheReadTokens: null, outputTokens: null, placeholder: false, ...extra };
}

describe('the overhead fit (pure)', () => {
  it('recovers an exact line with zero error', () => {
    const fit = fitOverheadPoints([0, 1000, 5000].map((t) => ({ transcript: t, reported: 20000 + 1.25 * t })))!;
    expect(fit.a).toBeCloseTo(20000, 6);
    expect(fit.b).toBeCloseTo(1.25, 9);
    expect(fit).toMatchObject({ calls: 3 });
    expect(fit.maxErrorPct).toBeCloseTo(0, 9);
    expect(fit.residualSpread).toBeCloseTo(0, 6);
  });

  it('reports the error of a line that does not fit exactly', () => {
    // Points (0, 100), (10, 120), (20, 100): the least-squares line is flat at 106.67.
    const fit = fitOverheadPoints([
      { transcript: 0, reported: 100 },
      { transcript: 10, reported: 120 },
      { transcript: 20, reported: 100 },
    ])!;
    expect(fit.b).toBeCloseTo(0, 9);
    expect(fit.a).toBeCloseTo(320 / 3, 9);
    expect(fit.maxErrorPct).toBeCloseTo(((120 - 320 / 3) / 120) * 100, 9);
    expect(fit.meanErrorPct).toBeCloseTo(((20 / 3 / 100) * 2 + (40 / 3 / 120)) * 100 / 3, 9);
    expect(fit.residualSpread).toBeCloseTo(Math.sqrt(((20 / 3) ** 2 * 2 + (40 / 3) ** 2) / 3), 9);
  });

  it('has no fit below 2 points; one transcript size gives b = 1 and the mean offset', () => {
    expect(fitOverheadPoints([])).toBeNull();
    expect(fitOverheadPoints([{ transcript: 10, reported: 30 }])).toBeNull();
    expect(fitOverheadPoints([{ transcript: 10, reported: 30 }, { transcript: 10, reported: 50 }])).toMatchObject({ a: 30, b: 1 });
  });

  it('fits only trusted calls before the first external compaction', () => {
    const calls = [
      call(1, 1000),
      call(3, 2, { placeholder: true }), // a placeholder is not a measurement
      call(5, 2000),
      call(7, null), // no input figure
      call(9, 50), // after the compaction: the transcript no longer matches what was sent
    ];
    const before = [0, 500, 1000, 1500, 2000];
    const fit = fitSessionOverhead(calls, before, 8)!;
    expect(fit.calls).toBe(2);
    expect(fit.a).toBeCloseTo(1000, 9);
    expect(fit.b).toBeCloseTo(1, 9);
    expect(fitSessionOverhead(calls, before, 3)).toBeNull();
    expect(fitSessionOverhead(calls, before, null)!.calls).toBe(3);
  });

  it('estimates a + b × transcript, or transcript + overheadTokens without a fit', () => {
    const fit = fitOverheadPoints([{ transcript: 0, reported: 100 }, { transcript: 100, reported: 300 }]);
    expect(contextEstimate(fit, 50)).toBeCloseTo(200, 9);
    expect(DEFAULT_OVERHEAD_TOKENS).toBe(0);
    expect(contextEstimate(null, 50)).toBe(50);
    expect(contextEstimate(null, 50, 25000)).toBe(25050);
  });

  it('sums turn token counts before each call position', () => {
    expect(transcriptTokensBefore([{ position: 0 }, { position: 2 }, { position: 4 }], [5, 7, 11, 13])).toEqual([0, 12, 36]);
  });
});

describe('overhead on spotter__258c7280 (Claude Code compacted it at preTokens 167,094)', () => {
  let db: DB;
  let sessionId: number;
  beforeAll(() => {
    db = openDatabase(':memory:');
    sessionId = importFiles(db, [SPOTTER]).sessions[0].id;
  });
  afterAll(() => db.close());

  it('fits a ≈ 25,421 and b ≈ 1.279 over the 102 calls before the compaction, max error 4.8%', () => {
    const { calls, overhead } = sessionUsage(db, sessionId);
    expect(calls).toHaveLength(152);
    // Measured with a standalone script's own o200k counts (test/fixtures/README.md): a 25,395, b 1.28, max error 4.8%.
    expect(overhead).not.toBeNull();
    expect(overhead!.calls).toBe(102);
    expect(overhead!.a).toBeCloseTo(25421.28, 1);
    expect(overhead!.b).toBeCloseTo(1.27933, 4);
    expect(overhead!.maxErrorPct).toBeCloseTo(4.80, 2);
    expect(overhead!.meanErrorPct).toBeCloseTo(1.31, 2);
    expect(overhead!.residualSpread).toBeCloseTo(1414.1, 0);
  });

  it('THE CHECK: at the call before Claude Code compacted, the reported context and the fitted estimate are within 5% of preTokens', () => {
    const { calls, overhead, transcriptBefore } = sessionUsage(db, sessionId);
    const [compaction] = listExternalCompactions(db, sessionId);
    const preTokens = compaction.preTokens!;
    expect(preTokens).toBe(167094);
    const i = calls.findLastIndex((c) => c.position < compaction.boundaryPosition);
    expect(i).toBe(101);
    // The first call carried 5 transcript tokens and reported 25,882.
    expect(transcriptBefore[0]).toBe(5);
    expect(reportedContext(calls[0])).toBe(25882);

    // Reported: 166,759 (−0.20%); preTokens also counts that call's 301 output tokens.
    const reported = reportedContext(calls[i])!;
    expect(reported).toBe(166759);
    expect(Math.abs(reported - preTokens) / preTokens).toBeLessThan(0.05);
    expect(reported + calls[i].outputTokens! - preTokens).toBe(-34);

    // Fitted from the transcript alone (109,280 tokens before the call): 165,226 (−1.12%).
    expect(transcriptBefore[i]).toBe(109280);
    const estimate = contextEstimate(overhead, transcriptBefore[i]);
    expect(estimate).toBeCloseTo(165226.2, 0);
    expect(Math.abs(estimate - preTokens) / preTokens).toBeLessThan(0.05);

    // Why a fit and not a constant: the first call's offset (25,877) alone misses by 19%.
    const constant = contextEstimate(null, transcriptBefore[i], reportedContext(calls[0])! - transcriptBefore[0]);
    expect(Math.abs(constant - preTokens) / preTokens).toBeGreaterThan(0.19);
  });

  it('fits no line for a session without usage (the constant overheadTokens applies)', () => {
    const tau = importFiles(db, [path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json')]).sessions[0].id;
    expect(sessionUsage(db, tau)).toEqual({ calls: [], overhead: null, transcriptBefore: [], children: [] });
  });
});
