/**
 * The plan says what happened and what Compact will do, on the real spotter session
 * (306 turns, 140,001 tokens): tail labels say when a tool cycle made them grow, a plan
 * with nothing to evict says so instead of "would compact … 0 spans", and Compact's
 * outcome (compactOutcome) follows the trigger unless forced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTurnMetas } from '../../electron/store/turns.js';
import { compactOutcome, planFor, STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import type { TurnMeta } from '../../shared/model/turn.js';
import { fixtureDb, sessionBySource, type FixtureDb } from '../helpers/fixture-sessions.js';

let f: FixtureDb;
let turns: TurnMeta[];
beforeAll(() => {
  f = fixtureDb();
  turns = listTurnMetas(f.db, sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl').id);
});
afterAll(() => f.close());

const plan = (strategy: Parameters<typeof planFor>[0], params: Record<string, number>) => planFor(strategy, { turns, summaries: [], state: {}, params });

/** The smallest asked count whose kept count is larger (a tool cycle straddled the cut). */
function firstGrown(label: (k: number) => { kept: number; text: string }): { asked: number; kept: number; text: string } {
  for (let k = 1; k < 60; k++) {
    const l = label(k);
    if (l.kept > k) return { asked: k, ...l };
  }
  throw new Error('no grown tail in the first 60 counts');
}

describe('labels say what happened', () => {
  it('dag: the fresh tail names the count asked and why it grew', () => {
    const g = firstGrown((k) => {
      const p = plan('dag', { freshTailCount: k });
      return { kept: turns.length - p.boundaries[0].position, text: p.boundaries[0].label };
    });
    expect(g.text).toBe(`fresh tail: last ${g.kept} turns (${g.asked} asked, grown to keep a tool call with its result)`);
    // Where no cycle straddles the cut the label is the plain count.
    const p = plan('dag', { freshTailCount: g.kept });
    expect(p.boundaries[0].label).toBe(`fresh tail: last ${g.kept} turns protected`);
  });

  it("watermark: the preserved count grows with the watermark's tool-cycle-safe cut", () => {
    const g = firstGrown((k) => {
      const p = plan('watermark', { preserveRecentTurns: k, softThresholdTokens: 0 });
      const text = p.boundaries.find((b) => b.kind === 'preserved-tail')!.label;
      const m = /^last (\d+) turns preserved/.exec(text);
      return { kept: Number(m?.[1]), text };
    });
    expect(g.text).toBe(`last ${g.kept} turns preserved (${g.asked} asked, grown to keep a tool call with its result)`);
  });

  it('window: the description and the labels say it keeps the first keepFirst PLUS the last maxTurns', () => {
    expect(STRATEGY_DEFINITIONS.window.description).toContain('keeps the first keepFirst conversation turns PLUS the last maxTurns');
    expect(STRATEGY_DEFINITIONS.window.description).toContain("OpenHands' max_events 10 = keepFirst 1 + maxTurns 9");
    const p = plan('window', { keepFirst: 1, maxTurns: 10 });
    const labels = p.boundaries.map((b) => b.label);
    expect(labels[0]).toBe('first 1 turn kept (keepFirst)');
    expect(labels[1]).toMatch(/^last \d+ turns kept \(maxTurns/);
  });
});

describe('Compact respects the trigger; forcing is explicit', () => {
  it('a fresh tail longer than the session: the plan says nothing can be evicted, not "would compact … 0 spans"', () => {
    // tokenBudget 1,000 x 0.75: the session's 140,001 tokens are far over the trigger.
    const p = plan('dag', { tokenBudget: 1000, freshTailCount: 400 });
    expect(p.spans).toHaveLength(0);
    expect(p.trigger.compact).toBe(false);
    expect(p.trigger.reason).toBe('context 140,001 transcript tokens > threshold 750, but nothing can be evicted: the fresh tail (last 400 turns asked) covers the whole session of 306 turns');
    expect(compactOutcome(p, true)).toEqual({ runs: false, tokensAfter: 140001, note: null });
    // The tail's label says it is the whole session, not "last 306 turns protected" as if 306 were asked.
    expect(p.boundaries[0]).toEqual({ kind: 'fresh-tail', position: 0, label: 'fresh tail: the whole session, 306 turns (400 asked)' });
  });

  it('under the trigger, Compact does not run and the gauge keeps "after" = now; Force runs the planned spans', () => {
    // Default dag: 140,001 tokens <= 150,000 (0.75 x 200,000), yet the plan lists the leaves a forced pass would write.
    const p = plan('dag', {});
    expect(p.trigger.compact).toBe(false);
    expect(p.spans.length).toBeGreaterThan(0);
    const steps = p.spans.length + p.condense.length;
    expect(compactOutcome(p, false)).toEqual({ runs: false, tokensAfter: 140001, note: `Force would run the ${steps} planned step(s)` });
    expect(compactOutcome(p, true)).toEqual({ runs: true, tokensAfter: p.tokensAfter, note: `forced: runs the ${steps} planned step(s) although the trigger says no` });
  });
});
