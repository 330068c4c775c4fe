/**
 * Cost at each call's own model and the context window of each call's model, on real data:
 * the mixed-model fixture (a real Claude Code session whose middle three fifths of calls say
 * Haiku: test/fixtures/claude-code-mixed/), the spotter 258c7280 session with Claude Code's
 * own compaction call and a subagent, and a model no price covers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/run.js';
import { importFiles, importText } from '../../electron/importers/import.js';
import { runReplay } from '../../electron/engine/replay.js';
import { loadReplaySource } from '../../electron/engine/engine.js';
import { listModelCalls } from '../../electron/store/model-calls.js';
import { simulateCallColumns } from '../../shared/cost/caching.js';
import { contextWindowOf, DEFAULT_CONTEXT_WINDOW } from '../../shared/cost/windows.js';
import { exportTimeline } from '../../shared/export/timeline.js';
import { replayInputs } from '../../shared/replay/timeline.js';
import { comparisonMarkdown } from '../../shared/export/comparison.js';
import { fromReplay } from '../../renderer/plan/use-timeline.js';
import { writeSetting } from '../../electron/store/settings.js';
import type { DB } from '../../electron/store/db.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { MIXED_FIXTURE, MIXED_SOURCE, mixModels, SOURCE_MODEL, SWITCHED_MODEL } from '../helpers/mixed-model-fixture.js';
import { tempDb, tempDir, type TempDir } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

class Sink {
  text = '';
  isTTY = false;
  write(s: string) {
    this.text += s;
    return true;
  }
}

let tmp: TempDir;
async function cli(args: string[]) {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runCli([...args, '--db', tmp.dbPath], { stdout, stderr, env: {}, cwd: tmp.dir });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('the context window is the model’s', () => {
  it('reads the table by model name, the 1M variants by [1m], open models behind a gateway prefix or an Ollama tag', () => {
    expect(contextWindowOf('claude-opus-4-6')).toMatchObject({ tokens: 200_000, from: 'table', matched: 'claude-opus-4-6' });
    expect(contextWindowOf('claude-sonnet-4-5-20250929').tokens).toBe(200_000);
    expect(contextWindowOf('claude-sonnet-4-5-20250929[1m]').tokens).toBe(1_000_000);
    expect(contextWindowOf('claude-haiku-4-5-20251001[1m]').tokens).toBe(200_000);
    expect(contextWindowOf('gpt-4o-2024-08-06').tokens).toBe(128_000);
    expect(contextWindowOf('gpt-4.1-2025-04-14').tokens).toBe(1_047_576);
    expect(contextWindowOf('gpt-5-mini').tokens).toBe(400_000);
    expect(contextWindowOf('gemini-2.5-pro').tokens).toBe(1_048_576);
    expect(contextWindowOf('meta-llama/llama-4-maverick').tokens).toBe(1_048_576);
    expect(contextWindowOf('llama3.1:8b').tokens).toBe(131_072);
    expect(contextWindowOf('qwen2.5-coder:32b').tokens).toBe(32_768);
    for (const m of ['claude-opus-4-6', 'gpt-4o', 'gemini-2.5-pro', 'qwen3']) expect(contextWindowOf(m)).toMatchObject({ asOf: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), source: expect.any(String) });
  });

  it('an unlisted model takes the default and says so; the user and a per-run override come first', () => {
    expect(contextWindowOf('my-local-model')).toMatchObject({ tokens: DEFAULT_CONTEXT_WINDOW, from: 'default', matched: null });
    expect(contextWindowOf('llama3.1:8b', { user: { 'llama3.1:8b': 8192 } })).toMatchObject({ tokens: 8192, from: 'user' });
    expect(contextWindowOf('claude-opus-4-6-20260101', { user: { 'claude-opus-4-6': 1_000_000 } })).toMatchObject({ tokens: 1_000_000, from: 'user' });
    expect(contextWindowOf('claude-opus-4-6', { override: 50_000, user: { 'claude-opus-4-6': 1_000_000 } })).toMatchObject({ tokens: 50_000, from: 'override' });
  });
});

describe('simulated calls at their own models', () => {
  it('prices each call at its model, reads nothing from the cache across a model switch, and sums per model', () => {
    const calls = { count: 4, promptTokens: [10_000, 12_000, 14_000, 16_000], sharedPrefixTokens: [0, 10_000, 12_000, 14_000], outputTokens: [100, 100, 100, 100], timestampMs: [NaN, NaN, NaN, NaN] };
    const mixed = simulateCallColumns(calls, { model: 'claude-opus-4-6', ttl: '5m', callModels: { names: ['claude-opus-4-6', 'claude-haiku-4-5'], index: [0, 0, 1, 1] } });
    // Call 2 is the first at Haiku: its cache is empty, the whole prompt is written.
    expect(Array.from(mixed.cacheReadTokens)).toEqual([0, 10_000, 0, 14_000]);
    const opus = (10_000 * 6.25 + 100 * 25) / 1e6 + (10_000 * 0.5 + 2_000 * 6.25 + 100 * 25) / 1e6;
    const haiku = (14_000 * 1.25 + 100 * 5) / 1e6 + (14_000 * 0.1 + 2_000 * 1.25 + 100 * 5) / 1e6;
    expect(mixed.byModel.map((m) => [m.model, m.calls])).toEqual([['claude-opus-4-6', 2], ['claude-haiku-4-5', 2]]);
    expect(mixed.byModel[0].costUsd).toBeCloseTo(opus, 9);
    expect(mixed.byModel[1].costUsd).toBeCloseTo(haiku, 9);
    expect(mixed.totals.costUsd).toBeCloseTo(opus + haiku, 9);
  });
});

describe('a mixed-model session (the real JSSoundRecorder session, three fifths of its calls on Haiku)', () => {
  let db: DB;
  let cleanup: () => void;
  let sessionId: number;
  beforeAll(() => {
    ({ db, cleanup } = tempDb('cs-mixed-'));
    sessionId = importFiles(db, [MIXED_FIXTURE]).sessions[0].id;
  });
  afterAll(() => cleanup());

  it('the fixture is exactly the real session with the models of its middle calls rewritten', () => {
    const source = fs.readFileSync(MIXED_SOURCE, 'utf8');
    expect(fs.readFileSync(MIXED_FIXTURE, 'utf8')).toBe(mixModels(source));
    expect(fs.existsSync(path.join(path.dirname(MIXED_FIXTURE), 'LICENSE-claude-code-log'))).toBe(true);
    const models = listModelCalls(db, sessionId).map((u) => u.model);
    expect(models).toHaveLength(36);
    // Sonnet, then Haiku, then Sonnet again: 15 Sonnet calls and 21 Haiku calls.
    const runs = models.filter((m, i) => i === 0 || m !== models[i - 1]);
    expect(runs).toEqual([SOURCE_MODEL, SWITCHED_MODEL, SOURCE_MODEL]);
    expect(models.filter((m) => m === SWITCHED_MODEL)).toHaveLength(21);
  });

  it('no compaction costs at least what the source recorded, priced call by call (the majority model would price it below)', async () => {
    const t = (await runReplay(db, { sessionId, strategy: 'dag' })).timeline!;
    const recordedMain = t.baselines.source.lines!.find((l) => l.kind === 'main')!;
    expect(recordedMain.calls).toBe(36);
    expect(t.baselines.none.totals.costUsd).toBeGreaterThanOrEqual(recordedMain.costUsd - 1e-6);
    expect(t.baselines.none.totals.byModel!.map((l) => [l.model, l.calls])).toEqual([[SOURCE_MODEL, 15], [SWITCHED_MODEL, 21]]);
    expect(t.pricing.models).toEqual([SOURCE_MODEL, SWITCHED_MODEL]);
    // Every call at Haiku (the majority), as the whole session used to be priced: well below what was billed.
    const source = loadReplaySource(db, sessionId);
    const inputs = replayInputs(source);
    const atMajority = simulateCallColumns({ count: inputs.calls.length, promptTokens: t.baselines.none.context, sharedPrefixTokens: [0, ...t.baselines.none.context.slice(0, -1)], outputTokens: t.calls.output, timestampMs: t.calls.timestampMs.map((x) => x ?? NaN) }, { model: SWITCHED_MODEL, ttl: t.pricing.ttl });
    expect(atMajority.totals.costUsd).toBeLessThan(0.6 * recordedMain.costUsd);
  });

  it("each call's model is in the timeline export, as the source recorded it", async () => {
    const t = (await runReplay(db, { sessionId, strategy: 'dag' })).timeline!;
    const csv = exportTimeline(t, { title: 'mixed' }).content.trim().split('\n');
    const header = csv[0].split(',');
    const col = header.indexOf('model');
    expect(col).toBeGreaterThan(0);
    const recorded = new Map(listModelCalls(db, sessionId).map((u) => [u.position, u.model]));
    const rows = csv.slice(1).map((l) => l.split(','));
    expect(rows).toHaveLength(36);
    for (const r of rows) expect(r[col]).toBe(recorded.get(Number(r[header.indexOf('position')])));
  });
});

describe("the window's Timeline and Compare rows say it too", () => {
  let db: DB;
  let cleanup: () => void;
  beforeAll(() => {
    ({ db, cleanup } = tempDb('cs-window-rows-'));
    importFiles(db, [SPOTTER]);
  });
  afterAll(() => cleanup());

  it('the Timeline rows flag no compaction and a variant that never fires as infeasible, and list the source line by line', async () => {
    const t = (await runReplay(db, { sessionId: 1, strategy: 'dag', params: { tokenBudget: 100_000_000 } })).timeline!;
    const view = fromReplay(t);
    const row = (id: string) => view.totals.find((r) => r.id === id)!;
    expect(row('variant')).toMatchObject({ infeasible: true, flags: 'infeasible: exceeds 200,000 tokens at call 138' });
    expect(row('none')).toMatchObject({ infeasible: true, flags: 'infeasible: exceeds 200,000 tokens at call 138' });
    expect(row('source')).toMatchObject({ infeasible: false, flags: '', label: "source's own, recorded" });
    expect(row('source-simulated').label).toBe("source's own, simulated");
    expect(view.sourceLines.map((l) => l.kind)).toEqual(['main', 'compaction', 'subagent']);
    expect(view.usageModelError).toBe(t.baselines.source.simulated!.usageModelError);
    // Compare's Markdown report carries the same flags beside each cost.
    const md = comparisonMarkdown({ sessionTitle: 's', columns: [{ key: 'v', label: 'dag', status: 'replayed' }], totals: { v: t.totals }, context: null } as unknown as Parameters<typeof comparisonMarkdown>[0]);
    expect(md).toContain('| infeasible: exceeds 200,000 tokens at call 138 |');
  });
});

describe('a model no price covers', () => {
  let db: DB;
  let cleanup: () => void;
  let sessionId: number;
  beforeAll(() => {
    ({ db, cleanup } = tempDb('cs-unpriced-'));
    // The same real session with its Haiku calls on a model the table does not list.
    const text = fs.readFileSync(MIXED_FIXTURE, 'utf8').replaceAll(`"model":"${SWITCHED_MODEL}"`, '"model":"llama-4-maverick"');
    sessionId = importText(db, 'unpriced.jsonl', text).sessions[0].id;
  });
  afterAll(() => cleanup());

  it('is counted as unpriced (never $0 silently) and the figure is marked incomplete, in every series', async () => {
    const t = (await runReplay(db, { sessionId, strategy: 'dag' })).timeline!;
    for (const totals of [t.totals, t.baselines.none.totals, t.baselines.source.totals]) {
      expect(totals.unpriced).toEqual({ calls: 21, models: ['llama-4-maverick'], message: 'unpriced: 21 calls (model llama-4-maverick)' });
      expect(totals.complete).toBe(false);
    }
    expect(t.pricing.known).toBe(false);
    expect(t.baselines.none.totals.byModel!.find((l) => l.model === 'llama-4-maverick')).toMatchObject({ calls: 21, costUsd: 0, known: false });
    // A price set for it completes the figure.
    writeSetting(db, 'prices', { 'llama-4-maverick': { input: 0.2, output: 0.6 } });
    const priced = (await runReplay(db, { sessionId, strategy: 'dag' })).timeline!;
    expect(priced.baselines.none.totals).toMatchObject({ unpriced: null, complete: true });
    expect(priced.baselines.none.totals.costUsd).toBeGreaterThan(t.baselines.none.totals.costUsd);
  });
});

describe('the window and the source record on the spotter session (Claude Code compacted once, one subagent)', () => {
  beforeAll(async () => {
    tmp = tempDir('cs-cost-cli-');
    expect((await cli(['import', SPOTTER, '--json'])).code).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it('replay says "infeasible" for no compaction above the 200k window whatever tokenBudget is, in the text and the JSON', async () => {
    for (const budget of ['200000', '100000000']) {
      const r = await cli(['replay', '1', '--strategy', 'dag', '--set', `tokenBudget=${budget}`, '--json']);
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.baselines.none.totals.infeasible).toMatchObject({ window: 200_000, model: 'claude-opus-4-6', atCall: 138, message: 'infeasible: exceeds 200,000 tokens at call 138' });
      expect(doc.baselines.none.overflowAtCall).toBe(138);
      expect(doc.baselines.none.contextWindow).toBe(200_000);
    }
    // With a budget the window cannot hold, dag never fires: the variant itself could not have run.
    const never = JSON.parse((await cli(['replay', '1', '--strategy', 'dag', '--set', 'tokenBudget=100000000', '--json'])).stdout);
    expect(never.events).toHaveLength(0);
    expect(never.totals.infeasible.message).toBe('infeasible: exceeds 200,000 tokens at call 138');
    // Its cost is still shown (what it would have cost), and equals no compaction's.
    expect(never.totals.costUsd).toBe(never.baselines.none.totals.costUsd);
    const text = await cli(['replay', '1', '--strategy', 'dag', '--set', 'tokenBudget=100000000']);
    expect(text.stdout).toMatch(/no compaction .* — infeasible: exceeds 200,000 tokens at call 138/);
    expect(text.stdout).toMatch(/dag .* — infeasible: exceeds 200,000 tokens at call 138/);
    // A window set for this run (a 1M-context variant) makes it feasible.
    const wide = JSON.parse((await cli(['replay', '1', '--strategy', 'dag', '--context-window', '1000000', '--json'])).stdout);
    expect(wide.baselines.none.totals.infeasible).toBeNull();
    expect(wide.windows).toEqual([{ model: 'claude-opus-4-6', tokens: 1_000_000, from: 'override' }]);
  });

  it("the source's recorded total is its main session, Claude Code's compaction call and its subagent, line by line", async () => {
    const doc = JSON.parse((await cli(['replay', '1', '--strategy', 'masking', '--json'])).stdout);
    const src = doc.baselines.source;
    expect(src.includesSubagents).toBe(true);
    expect(src.lines.map((l: { kind: string; calls: number }) => [l.kind, l.calls])).toEqual([['main', 152], ['compaction', 1], ['subagent', 3]]);
    // The compaction call: 3 input, 2,487 1-hour writes, 166,758 reads, 6 output at Opus 4.6 prices.
    expect(src.lines[1].costUsd).toBeCloseTo((3 * 5 + 2_487 * 10 + 166_758 * 0.5 + 6 * 25) / 1e6, 6);
    expect(src.lines[0].costUsd).toBeCloseTo(11.8539, 3);
    const sum = src.lines.reduce((s: number, l: { costUsd: number }) => s + l.costUsd, 0);
    expect(src.totals.costUsd).toBeCloseTo(sum, 6);
    expect(src.totals.byModel.map((l: { model: string; calls: number }) => [l.model, l.calls])).toEqual([['claude-opus-4-6', 153], ['claude-sonnet-4-5-20250929', 3]]);
    // Its output figures that are streaming placeholders (the compaction call's 6 tokens for a 3,457-token summary among them).
    expect(src.lines[1].placeholderOutputCalls).toBe(1);
    expect(src.placeholderOutputCalls).toBe(src.lines.reduce((s: number, l: { placeholderOutputCalls: number }) => s + l.placeholderOutputCalls, 0));
    // Simulated beside it: the usage model's error over the main and compaction calls.
    expect(src.simulated.recordedUsd).toBeCloseTo(src.lines[0].costUsd + src.lines[1].costUsd, 6);
    expect(src.simulated.usageModelError).toBeCloseTo(src.simulated.totals.costUsd / src.simulated.recordedUsd - 1, 3);
    expect(src.simulated.totals.modelCalls).toBe(153);
    // Without the subagents (an option, stated).
    const alone = JSON.parse((await cli(['replay', '1', '--strategy', 'masking', '--no-subagents', '--json'])).stdout).baselines.source;
    expect(alone.includesSubagents).toBe(false);
    expect(alone.lines.map((l: { kind: string }) => l.kind)).toEqual(['main', 'compaction']);
    expect(alone.totals.costUsd).toBeCloseTo(src.totals.costUsd - src.lines[2].costUsd, 6);
    const text = (await cli(['replay', '1', '--strategy', 'masking'])).stdout;
    expect(text).toContain('compaction $0.1084  1 calls  Claude Code compaction call');
    expect(text).toMatch(/masking +cost \$\d+\.\d{4} {2}\(usage model error [-+]\d+\.\d%\)/);
  });

  it('`prices` shows the table every figure uses, with dates and sources, and overrides it for this database', async () => {
    const doc = JSON.parse((await cli(['prices', '--json'])).stdout);
    const opus = doc.prices.find((r: { model: string }) => r.model === 'claude-opus-4-6');
    expect(opus).toMatchObject({ priceFrom: 'table', input: 5, output: 25, cacheWrite5m: 6.25, cacheWrite1h: 10, cacheRead: 0.5, contextWindow: 200_000, windowFrom: 'table', asOf: '2026-11-30' });
    expect(doc.prices.find((r: { model: string }) => r.model === 'llama-4-maverick')).toMatchObject({ priceFrom: 'none', input: null, contextWindow: 1_048_576 });
    // Opus made free and its window cut to 100k for this database: every figure follows.
    expect((await cli(['prices', '--set', 'claude-opus-4-6=0,0,0,0,0', '--window', 'claude-opus-4-6=100000'])).code).toBe(0);
    const r = JSON.parse((await cli(['replay', '1', '--strategy', 'masking', '--json'])).stdout);
    expect(r.baselines.source.lines[0].costUsd).toBe(0);
    expect(r.windows).toEqual([{ model: 'claude-opus-4-6', tokens: 100_000, from: 'user' }]);
    expect(r.baselines.source.totals.infeasible.message).toMatch(/^infeasible: exceeds 100,000 tokens at call \d+$/);
    expect((await cli(['prices', '--unset', 'claude-opus-4-6'])).code).toBe(0);
    expect(JSON.parse((await cli(['prices', '--json'])).stdout).userPrices).toEqual({});
    expect((await cli(['prices', '--set', 'x=1'])).code).toBe(2);
  });
});
