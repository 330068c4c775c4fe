/**
 * The prefix arrays of a live run (shared/replay/prefix-arrays.ts): the projection's ladder,
 * reused from one run to the next, hands out exactly the session's first turns at every
 * length; a run holds it alone; and a projection over reused arrays gives what one over
 * fresh arrays gives.
 */
import { describe, expect, it } from 'vitest';
import { growingPrefixes, reusedPrefixes, rungCapacity, rungFor } from '../../shared/replay/prefix-arrays.js';
import { projectTimeline } from '../../shared/replay/projection.js';
import { liveCallRecord, type LiveResult } from '../../shared/replay/live.js';
import { prepareStrategy } from '../../shared/strategies/index.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import { syntheticSessionMetas } from '../../bench/plan.js';

/** Ascending ends over [0, n]: every rung boundary and its neighbours, plus random ones. */
function ends(n: number, seed: number): number[] {
  const out = new Set<number>([0, 1, 63, 64, 65, n - 1, n]);
  for (let j = 0; rungCapacity(n, j) > 1; j++) for (const d of [-1, 0, 1]) out.add(rungCapacity(n, j) + d);
  let s = seed;
  for (let i = 0; i < 200; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.add(Math.floor((s / 0x100000000) * (n + 1)));
  }
  return [...out].filter((e) => e >= 0 && e <= n).sort((a, b) => a - b);
}

/** The array is the session's first `end` turns, the same objects in order. */
function expectPrefix(a: readonly unknown[], metas: readonly unknown[], end: number): void {
  expect(a.length).toBe(end);
  for (let i = 0; i < end; i++) if (a[i] !== metas[i]) throw new Error(`entry ${i} of a ${end}-turn prefix is not turn ${i}`);
}

describe('prefix arrays', () => {
  const metas = syntheticSessionMetas(5000);

  it('a reused ladder hands out exactly the first `end` turns, run after run, whatever the ends asked', () => {
    for (const seed of [1, 2, 3, 4]) {
      const run = reusedPrefixes(metas);
      // A run asks for longer and longer prefixes, sometimes the same length twice.
      for (const end of ends(metas.length, seed)) {
        expectPrefix(run.at(end), metas, end);
        expectPrefix(run.at(end), metas, end);
      }
      run.release();
    }
  });

  it("each prefix's rung holds it with its length over half the rung's capacity (V8 then neither trims nor grows the array's store)", () => {
    for (const n of [65, 100, 1000, 4097, 5000, 100_000]) {
      for (let end = 65; end <= n; end++) {
        const c = rungCapacity(n, rungFor(n, end));
        if (!(c >= end && 2 * end + 16 > c)) throw new Error(`a ${end}-turn prefix of ${n} turns on a rung of capacity ${c}`);
      }
    }
  });

  it('its arrays are the ones the previous run used (nothing allocated per run), and a lower rung keeps its turns while the run goes on', () => {
    const first = reusedPrefixes(metas);
    const a = first.at(3000);
    const b = first.at(4000);
    // 3,000 and 4,000 turns: both over half of the 5,000-turn rung.
    expect(b).toBe(a);
    const low = first.at(1000);
    expectPrefix(first.at(4999), metas, 4999);
    // Read after the run moved up (a span's ids are listed lazily): still its 1,000 turns.
    expectPrefix(low, metas, 1000);
    first.release();
    const second = reusedPrefixes(metas);
    expect(second.at(1000)).toBe(low);
    expect(second.at(3500)).toBe(a);
    expectPrefix(a, metas, 3500);
    second.release();
  });

  it('a run holds the ladder alone: a second run at the same time grows arrays of its own', () => {
    const one = reusedPrefixes(metas);
    const held = one.at(2600);
    const two = reusedPrefixes(metas);
    const own = two.at(2600);
    expect(own).not.toBe(held);
    expectPrefix(own, metas, 2600);
    expectPrefix(two.at(4000), metas, 4000);
    // The first run's array is untouched by the second.
    expectPrefix(held, metas, 2600);
    one.release();
    two.release();
    const three = reusedPrefixes(metas);
    expect(three.at(2600)).toBe(held);
    three.release();
  });

  it('a growing array keeps every turn it was given after its run (what a replay stores lists its ids from it)', () => {
    const run = growingPrefixes(metas);
    const a = run.at(100);
    expect(run.at(4000)).toBe(a);
    run.release();
    expectPrefix(a, metas, 4000);
  });
});

/** A result as plain data (every call's record, every firing). */
function plain(r: LiveResult) {
  return {
    calls: Array.from({ length: r.calls.count }, (_, k) => liveCallRecord(r.calls, k)),
    firings: r.firings.map((f) => ({ ...f })),
    state: r.state,
  };
}

describe('a projection over reused prefix arrays', () => {
  const cases: Array<[StrategyName, Record<string, number>]> = [
    ['dag', { tokenBudget: 40_000 }],
    ['watermark', { softThresholdTokens: 30_000 }],
    ['two-line', { contextWindow: 40_000 }],
    ['rolling', { replayTriggerTokens: 30_000 }],
  ];
  it.each(cases)('%s %j: the same as over one grown array and over fresh arrays, and again after other strategies used them', async (strategy, params) => {
    const metas = syntheticSessionMetas(3000);
    const prepared = prepareStrategy(strategy, params);
    const model = { a: 25_000, b: 1.05 };
    // The reference: one array grown for the run, as a replay's.
    const grown = plain(await projectTimeline({ prepared, metas, model, reusePrefixes: false }));
    expect(grown.firings.length).toBeGreaterThan(1);
    // A copy of the turn list has a ladder of its own, made for this run.
    const fresh = plain(await projectTimeline({ prepared, metas: metas.slice(), model }));
    expect(fresh).toEqual(grown);
    expect(plain(await projectTimeline({ prepared, metas, model }))).toEqual(fresh);
    for (const other of cases) await projectTimeline({ prepared: prepareStrategy(other[0], other[1]), metas, model });
    expect(plain(await projectTimeline({ prepared, metas, model }))).toEqual(fresh);
  });
});
