/**
 * A replay reads back none of what it just wrote (electron/store/replays.ts
 * insertReplaySummaries): the rows it returns are the rows listReplaySummaries reads, field for
 * field, before any ledger is recorded — leaves with their turns (handed lazily, as a pass
 * does), a condensation with its children remapped to stored ids, a summary folded at a later
 * call. On the real spotter session's turns.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFiles } from '../../electron/importers/import.js';
import { insertReplaySummaries } from '../../electron/store/replays.js';
import { getOrCreateVariant, listReplaySummaries, startRun } from '../../electron/store/variants.js';
import { listTurns } from '../../electron/store/turns.js';
import { MemoryVariantStore } from '../../shared/replay/memory-store.js';
import { withLazy } from '../../shared/lazy.js';
import type { NewSummary } from '../../shared/passes/context.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let t: TempDb;
let sessionId: number;
beforeAll(() => {
  t = tempDb('cs-replay-rows-');
  sessionId = importFiles(t.db, [SPOTTER]).sessions[0].id;
});
afterAll(() => t.cleanup());

describe("a replay's summary rows", () => {
  it('are the rows listReplaySummaries reads back, ledger aside', async () => {
    const turns = listTurns(t.db, sessionId);
    const leaf = (from: number, to: number, text: string): NewSummary =>
      withLazy<NewSummary, 'turnIds'>(
        { kind: 'leaf', depth: 0, text, tokenCount: 7, tier: 'normal', model: 'extractive', promptVersion: 'x', cacheKey: `k${from}`, cacheHit: from > 0, firstPosition: from, lastPosition: to },
        'turnIds',
        () => turns.slice(from, to + 1).map((x) => x.id),
      );
    const store = new MemoryVariantStore();
    store.callIndex = 3;
    const [a, b] = await store.commit((w) => [w.insertSummary(leaf(0, 9, 'first')), w.insertSummary(leaf(10, 19, 'second'))]);
    store.callIndex = 8;
    const c = await store.commit((w) => {
      w.markCompacted([a, b]);
      return w.insertSummary({ kind: 'condensed', depth: 1, text: 'both', tokenCount: 3, tier: 'aggressive', model: 'extractive', promptVersion: 'x', cacheKey: null, cacheHit: false, firstPosition: 0, lastPosition: 19, childSummaryIds: [a, b] });
    });
    const variant = getOrCreateVariant(t.db, { sessionId, strategy: 'dag', params: {}, summarizer: { kind: 'extractive' }, promptVersion: 'x' });
    const runId = startRun(t.db, variant.id, {}, 'replay');
    const { ids, rows } = insertReplaySummaries(t.db, { variantId: variant.id, runId, summaries: store.all(), compactedAtCall: new Map([[a, 8], [b, 8]]) });
    expect([...ids.keys()]).toEqual([a, b, c]);
    const readBack = listReplaySummaries(t.db, runId);
    expect(readBack.map((s) => s.ledger)).toEqual([null, null, null]);
    expect(new Map(readBack.map((s) => [s.id, s]))).toEqual(rows);
    expect(rows.get(ids.get(c)!)!.childIds).toEqual([ids.get(a), ids.get(b)]);
    expect(rows.get(ids.get(a)!)!.turnIds).toEqual(turns.slice(0, 10).map((x) => x.id));
    expect([...rows.values()].map((s) => [s.compacted, s.compactedAtCall, s.callIndex])).toEqual([[true, 8, 3], [true, 8, 3], [false, null, 8]]);
  });
});
