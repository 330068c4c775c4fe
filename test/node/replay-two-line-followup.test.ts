/**
 * Two-line in the live replay, "one task per conversation": a crossing while a background pass
 * is pending sets one follow-up mark, and when the pending pass lands (here: abandoned, because
 * an emergency digest moved the history meanwhile) the pass runs once more, so the standing
 * digest is upgraded by the next background pass whatever the line, not at the next warning
 * crossing. A hand-made session whose figures are worked out below.
 */
import { describe, expect, it } from 'vitest';
import type { TurnMeta } from '../../shared/model/turn.js';
import { projectTimeline } from '../../shared/replay/projection.js';
import { checkReplay } from '../../shared/replay/check.js';
import { callsOf } from '../../shared/replay/live.js';
import { prepareStrategy } from '../../shared/strategies/index.js';

// user 4,000 · assistant 100 · user 3,000 · assistant 100 · user 2,000 · then 100-token turns.
const sizes = [4000, 100, 3000, 100, 2000, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100];
const metas: TurnMeta[] = sizes.map((tokenCount, position) => ({ id: 100 + position, position, role: position % 2 === 0 ? 'user' : 'assistant', tokenCount, charCount: tokenCount * 4, cycleStart: position }));
const params = { contextWindow: 10_000, warningPct: 50, emergencyPct: 80, keepLast: 1, minBatch: 1, contextMeasure: 'transcript' };
const model = { a: 0, b: 1, source: 'parameter' as const };

describe('two-line follow-up mark in the replay', () => {
  it('upgrades a digest that brought the context under the warning line at the next background pass', async () => {
    // Calls are the assistant turns: positions 1, 3, 5, 7, 9, 11, 13, 15, 17.
    // call 1 (pos 3): 7,100 tokens = 71% (warning): a background pass over turns 0-1, due at call 4 (delay 3).
    // call 2 (pos 5): 9,200 = 92% (emergency): the digest of turns 0-3 now (900 tokens); the view is 2,900 = 29%.
    //   A background pass is pending, so this crossing sets the follow-up mark.
    // call 4 (pos 9): the pending pass lands on a history the digest moved: abandoned. The mark runs the
    //   pass again although the context (3,300 = 33%) is under the warning line: it upgrades the digest,
    //   landing at call 7. Without the mark, the digest would stand until the context reached 50% again.
    const prepared = prepareStrategy('two-line', params);
    const r = await projectTimeline({ prepared, metas, model, commitDelayCalls: 3 });
    const firings = r.firings.map((f) => ({ call: f.call, kind: f.kind, created: f.created.length, abandoned: f.stats.abandoned === true }));
    expect(firings).toEqual([
      { call: 2, kind: 'fire', created: 1, abandoned: false },
      { call: 4, kind: 'commit', created: 0, abandoned: true },
      { call: 7, kind: 'commit', created: 1, abandoned: false },
    ]);
    expect(r.calls.viewTokens[2]).toBe(2900);
    expect(r.calls.viewTokens[4]).toBe(3300);
    // The reference replay (the design's rule as plain loops) says the same.
    const check = await checkReplay({ prepared, metas, calls: callsOf(metas), model, commitDelayCalls: 3 });
    expect(check.agree).toBe(true);
  });
});
