/**
 * The live loop's fast path gives exactly what the full machinery gives: model-free
 * strategies (window, masking, forgetting) run their `live.step` instead of their pass, and
 * calls where nothing fires run in a synchronous loop (shared/replay/live.ts `fastSteps`);
 * the reference walks every call on the async path and runs every pass with its context,
 * commit and promise. Every call's numbers and every firing (reason, stats, state) must
 * match, on the real spotter session and on a generated one, with the defaults and with
 * parameters small enough to fire at almost every call.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { listTurnMetas } from '../../electron/store/turns.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { projectTimeline } from '../../shared/replay/projection.js';
import { liveCallRecord, type LiveResult } from '../../shared/replay/live.js';
import { firingEvents } from '../../shared/replay/timeline.js';
import { prepareStrategy } from '../../shared/strategies/index.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import type { TurnMeta } from '../../shared/model/turn.js';
import { syntheticSessionMetas } from '../../bench/plan.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
let dir: string;
let db: DB;
let spotter: TurnMeta[];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-replay-fast-'));
  db = openDatabase(path.join(dir, 'studio.sqlite'));
  spotter = listTurnMetas(db, importFiles(db, [SPOTTER]).sessions[0].id);
});
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A live result as plain data: every call's record and every firing field (lazy ones read). */
function plain(r: LiveResult) {
  return {
    calls: Array.from({ length: r.calls.count }, (_, k) => liveCallRecord(r.calls, k)),
    firings: r.firings.map((f) => ({ call: f.call, position: f.position, kind: f.kind, reason: f.reason, contextBefore: f.contextBefore, contextAfter: f.contextAfter, created: f.created, compacted: f.compacted, maxDepth: f.maxDepth, stats: f.stats, work: f.work, state: f.state })),
    state: r.state,
  };
}

const CASES: Array<[StrategyName, Record<string, number>]> = [
  ['window', {}],
  ['window', { keepFirst: 3, maxTurns: 4 }],
  ['masking', {}],
  ['masking', { maskWindow: 1 }],
  ['masking', { maskWindow: 0 }],
  ['forgetting', {}],
  ['forgetting', { maxSize: 12, keepFirst: 2 }],
  // Summarizing strategies: the synchronous loop between firings against the async walk.
  ['dag', { tokenBudget: 40_000 }],
  ['two-line', { contextWindow: 40_000 }],
  ['watermark', { softThresholdTokens: 30_000 }],
  ['rolling', { replayTriggerTokens: 30_000 }],
];

describe('model-free steps match their passes call for call', () => {
  for (const [session, metasOf] of [
    ['the real spotter session', () => spotter],
    ['a generated 3,000-turn session', () => syntheticSessionMetas(3000)],
  ] as const) {
    it.each(CASES)(`%s %j on ${session}`, async (strategy, params) => {
      const metas = metasOf();
      const prepared = prepareStrategy(strategy, params);
      const fast = await projectTimeline({ prepared, metas, model: { a: 25_000, b: 1.05 } });
      const reference = await projectTimeline({ prepared, metas, model: { a: 25_000, b: 1.05 }, fastSteps: false });
      // The case must exercise the step: it fires, and (for every case here) more than once.
      expect(reference.firings.length).toBeGreaterThan(1);
      expect(plain(fast)).toEqual(plain(reference));
    });
  }
});

describe("a projection's events, read lazily (the window reads the reasons of the firings it lists)", () => {
  it.each(CASES)('%s %j on the generated session: the lazy events, read out of order, are the plain events', async (strategy, params) => {
    const metas = syntheticSessionMetas(3000);
    const prepared = prepareStrategy(strategy, params);
    const lazy = firingEvents((await projectTimeline({ prepared, metas, model: { a: 25_000, b: 1.05 } })).firings, { lazy: true });
    const reference = firingEvents((await projectTimeline({ prepared, metas, model: { a: 25_000, b: 1.05 }, fastSteps: false })).firings);
    // A model-free step's reason is derived up to the firing read: the middle one first, then the
    // first, then every one through JSON (toJSON: the plain object).
    const mid = Math.floor(lazy.length / 2);
    expect(lazy[mid].reason).toBe(reference[mid].reason);
    expect(lazy[0].reason).toBe(reference[0].reason);
    expect(JSON.parse(JSON.stringify(lazy))).toEqual(JSON.parse(JSON.stringify(reference)));
  });
});
