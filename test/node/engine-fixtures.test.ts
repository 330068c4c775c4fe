/**
 * Every strategy on every real fixture session, through the engine with the extractive
 * summarizer (default parameters, forced): no run fails or stays running, the turns table
 * is byte-identical afterwards, every replay is valid for the OpenAI and Anthropic rules,
 * and running the same variants again over the same content (deleted and re-imported:
 * new session, turn ids and timestamps of import) makes ZERO summarizer calls, every
 * summary coming back from the cache with the same text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompaction, type RunCompactionResult } from '../../electron/engine/engine.js';
import { deleteSession } from '../../electron/store/sessions.js';
import { listRuns, listSummaries } from '../../electron/store/variants.js';
import { importFiles } from '../../electron/importers/import.js';
import { replayFor } from '../../electron/services/collaborators.js';
import { STRATEGIES, type StrategyName } from '../../shared/strategies/types.js';
import { validateMessages } from '../../shared/replay/index.js';
import { fixtureDb, fixtureFiles, turnsDump, type FixtureDb } from '../helpers/fixture-sessions.js';

interface Outcome {
  session: number;
  strategy: StrategyName;
  result: RunCompactionResult;
  texts: string[];
}

let f: FixtureDb;
let turnsBefore: string;
const first: Outcome[] = [];

async function runAll(sessionIds: readonly number[]): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (let i = 0; i < sessionIds.length; i++) {
    for (const strategy of STRATEGIES) {
      const result = await runCompaction(f.db, { sessionId: sessionIds[i], strategy, force: true });
      out.push({ session: i, strategy, result, texts: listSummaries(f.db, result.variantId).map((s) => s.text) });
    }
  }
  return out;
}

beforeAll(async () => {
  f = fixtureDb();
  turnsBefore = turnsDump(f.db);
  first.push(...(await runAll(f.sessions.map((s) => s.id))));
}, 300_000);
afterAll(() => f.close());

describe('every strategy on every fixture session', () => {
  it('imports the 30 fixture sessions (26 + the 4 tau-bench records) and runs all 9 strategies on each, none failing', () => {
    expect(f.sessions).toHaveLength(30);
    expect(first).toHaveLength(30 * STRATEGIES.length);
    expect(STRATEGIES).toHaveLength(9);
    const failed = first.filter((o) => o.result.status === 'failed' || o.result.status === 'cancelled').map((o) => `${o.strategy} on #${o.session}: ${o.result.error}`);
    expect(failed).toEqual([]);
    expect((f.db.prepare("SELECT COUNT(*) AS n FROM runs WHERE status = 'running'").get() as { n: number }).n).toBe(0);
    // every summarizing strategy did summarize somewhere
    for (const strategy of ['dag', 'rolling', 'watermark'] as const) expect(first.some((o) => o.strategy === strategy && o.texts.length > 0)).toBe(true);
  });

  it('records every run with the engine counters', () => {
    for (const o of first) {
      const runs = listRuns(f.db, o.result.variantId);
      expect(runs.at(-1)).toMatchObject({ id: o.result.runId, status: o.result.status });
      for (const key of ['summarizerCalls', 'cacheHits', 'tokensBefore', 'tokensAfter']) expect(typeof o.result.stats[key]).toBe('number');
    }
  });

  it('leaves the turns table byte-identical', () => {
    expect(turnsDump(f.db)).toBe(turnsBefore);
  });

  it('never stores an empty summary', () => {
    for (const o of first) for (const t of o.texts) expect(t.trim().length).toBeGreaterThan(0);
  });

  it('gives a replay valid for both the OpenAI and the Anthropic rules (no tool_use separated from its tool_result)', () => {
    const problems: string[] = [];
    for (const o of first) {
      const replay = replayFor(f.db, o.result.variantId);
      for (const rules of ['openai', 'anthropic'] as const) for (const p of validateMessages(replay.messages, rules)) problems.push(`${o.strategy} #${o.session} ${rules}: ${p.message}`);
    }
    expect(problems).toEqual([]);
  });

  it('makes zero summarizer calls when the same variants run again over the same content (re-imported)', async () => {
    const requested = first.reduce((n, o) => n + Number(o.result.stats.summariesRequested), 0);
    const calls = first.reduce((n, o) => n + Number(o.result.stats.summarizerCalls), 0);
    expect(requested).toBeGreaterThan(50);
    expect(calls).toBeGreaterThanOrEqual(requested);
    for (const s of f.sessions) if (s.parentSessionId === null) deleteSession(f.db, s.id);
    expect((f.db.prepare('SELECT COUNT(*) AS n FROM summaries').get() as { n: number }).n).toBe(0);
    const again = importFiles(f.db, fixtureFiles()).sessions.filter((s) => !s.duplicate);
    expect(again.map((s) => [s.turns, s.tokens])).toEqual(f.sessions.map((s) => [s.turns, s.tokens]));
    const second = await runAll(again.map((s) => s.id));
    for (let i = 0; i < first.length; i++) {
      const [a, b] = [first[i], second[i]];
      expect(`${b.strategy} #${b.session}: ${b.result.status}, ${b.result.stats.summarizerCalls} calls`).toBe(`${a.strategy} #${a.session}: ${a.result.status}, 0 calls`);
      expect(b.result.stats.cacheHits).toBe(a.result.stats.summariesRequested);
      expect(b.texts).toEqual(a.texts);
    }
  }, 300_000);
});
