import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompaction } from '../../electron/engine/engine.js';
import { listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { getVariant, listRuns, listSummaries } from '../../electron/store/variants.js';
import { countTokens } from '../../electron/tokenizer.js';
import { buildReplay, validateMessages } from '../../shared/replay/index.js';
import type { Summarizer } from '../../shared/strategies/summarizer.js';
import { startFakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { fixtureDb, sessionBySource, splitCycles, turnsDump, type FixtureDb } from '../helpers/fixture-sessions.js';

describe('rolling pass through the engine on every real fixture session', () => {
  let f: FixtureDb;
  let before: string;
  beforeAll(() => {
    f = fixtureDb();
    before = turnsDump(f.db);
  });
  afterAll(() => f.close());

  it('rolls until up to date: one live summary chained to the ones it replaced, the pointer over whole tool cycles', async () => {
    let runs = 0;
    for (const s of f.sessions) {
      const metas = listTurnMetas(f.db, s.id);
      const conv = metas.filter((m) => m.role !== 'system');
      const posOf = new Map(metas.map((m) => [m.id, m.position]));
      let variantId = 0;
      for (let call = 0; call < 100; call++) {
        const r = await runCompaction(f.db, { sessionId: s.id, strategy: 'rolling', params: { compactionCount: 50 } });
        expect(r.error).toBeNull();
        variantId = r.variantId;
        if (r.status === 'skipped') {
          expect(String(r.stats.reason)).toMatch(/^already up to date/);
          expect(r.stats.summarizerCalls).toBe(0);
          break;
        }
        runs++;
        const state = getVariant(f.db, r.variantId)!.state;
        expect(state.pointer).toBe(r.stats.pointer);
        const summaries = listSummaries(f.db, r.variantId);
        const live = summaries.filter((x) => !x.compacted);
        expect(live.map((x) => x.id)).toEqual([state.rollingSummaryId]);
        expect(live[0].text.trim()).not.toBe('');
        // the newest summary covers the batch and points at the summary it replaced
        const newest = live[0];
        const positions = new Set(newest.turnIds.map((id) => posOf.get(id)!));
        expect(splitCycles(f.db, s.id, positions)).toEqual([]);
        expect(newest.childIds.length).toBe(summaries.length > 1 ? 1 : 0);
        // every conversation turn before the pointer is in exactly one summary
        const covered = summaries.flatMap((x) => x.turnIds);
        expect(covered).toEqual(conv.slice(0, state.pointer).map((m) => m.id));
      }
      const v = getVariant(f.db, variantId)!;
      const replay = buildReplay({ strategy: 'rolling', turns: listTurns(f.db, s.id), summaries: listSummaries(f.db, variantId), state: v.state, params: v.params, countTokens: (t) => countTokens(t) });
      expect(validateMessages(replay.messages, 'openai')).toEqual([]);
      expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);
    }
    expect(runs).toBeGreaterThan(40);
    expect(turnsDump(f.db)).toBe(before);
  });

  it('follows the call rule on the 306-turn spotter session: 71 turns first, then by the new summary size', async () => {
    const s = sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    // two calls (skipped if the test above already rolled this variant to the end)
    await runCompaction(f.db, { sessionId: s.id, strategy: 'rolling', params: { compactionCount: 50 } });
    const runs = listRuns(f.db, (await runCompaction(f.db, { sessionId: s.id, strategy: 'rolling', params: { compactionCount: 50 } })).variantId);
    expect(runs[0].stats).toMatchObject({ turnsCompacted: 71, charsCompacted: 245295, pointer: 71 });
    const summaries = listSummaries(f.db, runs[0].variantId);
    const first = summaries.find((x) => x.depth === 0)!;
    const second = summaries.find((x) => x.depth === 1)!;
    // second call: target = floor((first summary chars + 227391 uncompacted chars) × 50%)
    const target = Math.floor((first.charCount + 227391) / 2);
    expect(String(runs[1].stats.reason)).toContain(`to reach target ${target} = floor((${first.charCount} summary + 227391 uncompacted chars) × 50%)`);
    expect(second.childIds).toEqual([first.id]);
    expect(first.compacted).toBe(true);
  });
});

describe('rolling pass with a model that answers nothing', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  it('an empty summary is an error (the rolling design): one call, the run fails, nothing is written', async () => {
    const s = sessionBySource(f, 'claude-code-viewer__1af7fc5e');
    const calls: string[] = [];
    const silent: Summarizer = { kind: 'openai', model: 'silent-test-model', promptVersion: 'test', summarize: async (req) => (calls.push(req.tier), { text: '', model: 'silent-test-model' }) };
    const r = await runCompaction(f.db, { sessionId: s.id, strategy: 'rolling', params: { compactionCount: 50 }, summarizer: silent });
    expect(r.status).toBe('failed');
    expect(r.error).toBe('rolling: the summarizer returned no usable summary (normal: empty output); nothing was written');
    // No aggressive retry, no extractive fallback: the fallback ladder is off for rolling by default.
    expect(calls).toEqual(['normal']);
    expect(listSummaries(f.db, r.variantId)).toEqual([]);
    expect(getVariant(f.db, r.variantId)!.state).toEqual({});
  });

  it("with the fallback ladder on in the variant's summarizer settings, an empty answer falls back to the extractive summary, as a variant of its own", async () => {
    const fake = await startFakeOpenAiServer();
    fake.setDefault({ kind: 'empty' });
    try {
      const s = sessionBySource(f, 'claude-code-viewer__1af7fc5e');
      const config = { kind: 'openai' as const, baseURL: fake.baseURL, model: 'fake-model', apiKey: 'sk-test-ladder' };
      const off = await runCompaction(f.db, { sessionId: s.id, strategy: 'rolling', params: { compactionCount: 50 }, summarizer: config });
      expect(off.status).toBe('failed');
      expect(fake.requests).toHaveLength(1);
      const on = await runCompaction(f.db, { sessionId: s.id, strategy: 'rolling', params: { compactionCount: 50 }, summarizer: { ...config, fallbackLadder: { rolling: true } } });
      expect(on.status).toBe('completed');
      expect(on.variantId).not.toBe(off.variantId);
      expect(getVariant(f.db, on.variantId)!.summarizer).toMatchObject({ kind: 'openai', fallbackLadder: { rolling: true } });
      // normal, then aggressive, then the extractive fallback.
      expect(fake.requests).toHaveLength(3);
      const [summary] = listSummaries(f.db, on.variantId);
      expect(summary.tier).toBe('fallback');
      expect(summary.text.trim()).not.toBe('');
    } finally {
      await fake.close();
    }
  });
});
