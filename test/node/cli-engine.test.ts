/**
 * The engine commands of the CLI (plan, compact, variants), run in-process through the
 * real runner (electron/cli/run.ts) on a temporary database holding the real 306-turn
 * spotter session, and against the fake OpenAI-compatible server for --summarizer openai.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/run.js';
import { ProgressBar } from '../../electron/cli/commands/engine-args.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { fakeSummaryOf, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';
import { OPENAI_PROMPT_VERSION } from '../../shared/summarize/prompts.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const SET = ['--set', 'tokenBudget=40000', '--set', 'leafChunkTokens=8000'];

class Sink {
  text = '';
  constructor(readonly isTTY = false) {}
  write(s: string) {
    this.text += s;
    return true;
  }
}

let tmp: TempDir;
let dir: string;
let dbPath: string;
async function cli(args: string[], opts: { stderrTTY?: boolean; stdoutTTY?: boolean; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {}) {
  const stdout = new Sink(opts.stdoutTTY);
  const stderr = new Sink(opts.stderrTTY);
  const code = await runCli([...args, '--db', dbPath], { stdout, stderr, env: opts.env ?? {}, cwd: dir, signal: opts.signal });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

beforeEach(async () => {
  tmp = tempDir('cs-cli-engine-');
  ({ dir, dbPath } = tmp);
  const r = await cli(['import', SPOTTER, '--json']);
  expect(r.code).toBe(0);
  // The spotter fixture as stored (o200k_base): 306 turns, 140,001 tokens.
  expect(JSON.parse(r.stdout).sessions[0]).toMatchObject({ id: 1, turns: 306, tokens: 140001 });
});
afterEach(() => tmp.cleanup());

describe('plan', () => {
  it('prints the trigger, boundaries, spans and projected DAG as one JSON document', async () => {
    const r = await cli(['plan', '1', '--strategy', 'dag', ...SET, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const plan = JSON.parse(r.stdout);
    expect(plan).toMatchObject({ sessionId: 1, strategy: 'dag', variantId: null, trigger: { compact: true }, tokensBefore: 140001 });
    expect(plan.params).toEqual({ contextThreshold: 0.75, tokenBudget: 40000, freshTailCount: 16, leafChunkTokens: 8000, condensedMinFanout: 4, maxCondenseDepth: -1, triggerCount: 0, preMaskWindow: -1, contextMeasure: 0 });
    expect(plan.boundaries[0]).toMatchObject({ kind: 'fresh-tail', position: 289 });
    expect(plan.spans).toHaveLength(18);
    expect(plan.spans[0]).toMatchObject({ id: 'p0', purpose: 'leaf', firstPosition: 0, lastPosition: 4 });
    expect(plan.condense).toHaveLength(1);
    expect(plan.dag.nodes).toHaveLength(19);
    expect(plan.dag.edges).toHaveLength(18);
  });

  it('a human-readable plan names the trigger and every span', async () => {
    const r = await cli(['plan', '1', '--strategy', 'dag', ...SET]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('Plan for session 1 (306 turns, 140001 tokens), strategy dag, new variant');
    // 140,001 / 40,000 = 350%.
    // The spotter session reports usage: its thresholds compare with the calibrated context (its fit a + b × transcript).
    expect(lines[2]).toBe('  trigger: compact: context 204,528 calibrated tokens (140,001 transcript + 25,421 fixed + 39,106 from the tokenizer ratio 1.279) (511.3%) > threshold 30000 (0.75 × 40000)');
    expect(lines.filter((l) => l.startsWith('  span '))).toHaveLength(18);
  });
});

describe('compact', () => {
  it('prints {variantId, runId, status, stats} with the engine counters; a re-run makes zero summarizer calls', async () => {
    const first = await cli(['compact', '1', '--strategy', 'dag', ...SET, '--json']);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(''); // --json to a pipe: no progress bar
    const out = JSON.parse(first.stdout);
    expect(Object.keys(out)).toEqual(['variantId', 'runId', 'status', 'stats']);
    expect(out).toMatchObject({ variantId: 1, runId: 1, status: 'completed' });
    // As in engine.test.ts: 18 leaves + 1 condensed; 139,992 = the normalized replay of the 140,001 stored tokens.
    expect(out.stats).toMatchObject({ summarizerCalls: 19, cacheHits: 0, tokensBefore: 140001, leafSummariesCreated: 18, condensedSummariesCreated: 1, turnsCompacted: 289, tiersUsed: { normal: 19 } });
    expect(out.stats.tokensAfter).toBeLessThan(6000);

    const second = JSON.parse((await cli(['compact', '1', '--strategy', 'dag', ...SET, '--json'])).stdout);
    expect(second).toMatchObject({ variantId: 1, runId: 2, status: 'skipped' });
    expect(second.stats).toMatchObject({ summarizerCalls: 0, cacheHits: 0, tokensBefore: out.stats.tokensAfter, tokensAfter: out.stats.tokensAfter });

    const variants = JSON.parse((await cli(['variants', '1', '--json'])).stdout);
    expect(variants.variants).toHaveLength(1);
    expect(variants.variants[0]).toMatchObject({ id: 1, strategy: 'dag', summaries: 19, runs: 2, summarizer: { kind: 'extractive', promptVersion: 'extractive-3' }, lastRun: { id: 2, status: 'skipped' } });
  });

  it('variants shows the table columns, renames and deletes', async () => {
    expect((await cli(['compact', '1', '--strategy', 'dag', ...SET])).code).toBe(0);
    expect((await cli(['compact', '1', '--strategy', 'masking'])).code).toBe(0);
    const table = (await cli(['variants', '1'])).stdout.split('\n');
    expect(table[0].split(/\s{2,}/)).toEqual(['ID', 'NAME', 'STRATEGY', 'PARAMETERS', 'SUMMARIZER', 'RUNS', 'FIRINGS', 'TOKENS SENT', 'SUMM. CALLS', 'COST', 'FACT RET.', 'TEXT RET.', 'PROBES', 'LAST RUN']);
    // Only the parameters away from the defaults; no replay yet, so its replay columns are '-';
    // retention is its live pass summaries' ledger (all facts kept / all facts of their spans),
    // and beside it the text-level score of the same summaries (strings found as written). The
    // hand-off summarizer reads the turns itself, so the fact ledger no longer scores its own extraction (90% before).
    const cells = (line: string) => line.trim().split(/\s{2,}/);
    expect(cells(table[1])).toEqual(['1', '-', 'dag', 'tokenBudget=40000 leafChunkTokens=8000', 'extractive', '1', '-', '-', '-', '-', '35%', '32%', '-', expect.stringMatching(/ pass completed$/)]);
    expect(cells(table[2]).slice(0, 4)).toEqual(['2', '-', 'masking', 'defaults']);
    const renamed = await cli(['variants', '1', '--rename', '1', '--name', 'tight dag']);
    expect(renamed).toMatchObject({ code: 0, stdout: 'Renamed variant 1 to "tight dag".\n' });
    expect(cells((await cli(['variants', '1'])).stdout.split('\n')[1]).slice(0, 3)).toEqual(['1', 'tight dag', 'dag']);
    // 18 leaves + 1 condensed (engine.test.ts), in the one run.
    expect(JSON.parse((await cli(['variants', '1', '--delete', '1', '--json'])).stdout)).toEqual({ deleted: true, id: 1, runs: 1, summaries: 19 });
    expect(JSON.parse((await cli(['variants', '1', '--json'])).stdout).variants.map((v: { id: number }) => v.id)).toEqual([2]);
    const missing = await cli(['variants', '1', '--delete', '1']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no variant 1 in session 1');
    expect((await cli(['variants', '1', '--rename', '2'])).code).toBe(2);
  });

  it('bad parameters and strategies are errors on stderr with an exit code, stdout stays empty', async () => {
    const bad = await cli(['compact', '1', '--strategy', 'dag', '--set', 'freshTailCount=many']);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^compaction-studio: parameter freshTailCount must be a number, got "many"/);
    const badJson = await cli(['compact', '1', '--strategy', 'dag', '--set', 'oops=1', '--json']);
    expect(badJson).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(badJson.stderr)).toEqual({ error: { code: 'bad_params', message: "unknown parameter 'oops' for strategy dag (known: contextThreshold, tokenBudget, freshTailCount, leafChunkTokens, condensedMinFanout, maxCondenseDepth, triggerCount, preMaskWindow, contextMeasure)" } });
    const strategy = await cli(['compact', '1', '--strategy', 'nope']);
    expect(strategy.code).toBe(2);
    expect(strategy.stderr).toContain('unknown strategy "nope"');
    const missing = await cli(['compact', '7', '--strategy', 'dag']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no session with id 7');
    const malformed = await cli(['compact', '1', '--strategy', 'dag', '--set', 'freshTailCount']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--set expects KEY=VALUE, got "freshTailCount"');
    const model = await cli(['compact', '1', '--strategy', 'dag', '--model', 'x']);
    expect(model.code).toBe(2);
    const noKey = await cli(['compact', '1', '--strategy', 'dag', '--summarizer', 'openai', '--json']);
    expect(noKey).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(noKey.stderr).error).toMatchObject({ code: 'bad_params' });
    expect(JSON.parse(noKey.stderr).error.message).toContain('set OPENAI_API_KEY');
    const variants = JSON.parse((await cli(['variants', '1', '--json'])).stdout);
    expect(variants.variants).toEqual([]);
  });

  it('a cancelled pass (Ctrl-C) exits 130 and records the run as cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await cli(['compact', '1', '--strategy', 'dag', ...SET], { signal: controller.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('run 1 cancelled: nothing was written');
    const variants = JSON.parse((await cli(['variants', '1', '--json'])).stdout);
    expect(variants.variants[0]).toMatchObject({ summaries: 0, lastRun: { status: 'cancelled' } });
  });
});

describe('export', () => {
  it('writes what the model sees for a variant in each format, to stdout or a file', async () => {
    await cli(['compact', '1', '--strategy', 'dag', ...SET, '--json']);
    const openaiExport = await cli(['export', '1', '--variant', '1', '--format', 'openai']);
    expect(openaiExport.code).toBe(0);
    const { messages } = JSON.parse(openaiExport.stdout);
    expect(messages[0]).toMatchObject({ role: 'user' });
    expect(messages[0].content.startsWith('[Summary of turns 0-288, depth 1]\n[condensed summary of 18 summaries]')).toBe(true);

    const file = path.join(dir, 'replay.md');
    const saved = await cli(['export', '1', '--variant', '1', '--format', 'markdown', '-o', file, '--json']);
    expect(saved.code).toBe(0);
    const doc = JSON.parse(saved.stdout);
    expect(doc).toMatchObject({ savedTo: file, mimeType: 'text/markdown', bytes: fs.statSync(file).size });
    expect(fs.readFileSync(file, 'utf8')).toContain('**Summary** s19 · condensed · depth 1');

    for (const format of ['anthropic', 'jsonl', 'dag']) expect((await cli(['export', '1', '--variant', '1', '--format', format])).code).toBe(0);
    const dag = JSON.parse((await cli(['export', '1', '--variant', '1', '--format', 'dag'])).stdout);
    expect(dag.nodes.filter((n: { kind?: string }) => n.kind === 'condensed')).toHaveLength(1);
  });

  it('names a missing variant or format clearly', async () => {
    const noVariant = await cli(['export', '1', '--variant', '5', '--format', 'openai']);
    expect(noVariant).toMatchObject({ code: 1, stdout: '' });
    expect(noVariant.stderr).toContain('session 1 has no variant 5');
    const badFormat = await cli(['export', '1', '--variant', '1', '--format', 'pdf']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain('--format must be one of openai, anthropic, jsonl, markdown, dag, got "pdf"');
  });
});

describe('replay', () => {
  it("prints its document: {variantId, runId, events, totals, baselines: {none: {totals}, source: {events, totals}}}", async () => {
    const r = await cli(['replay', '1', '--strategy', 'watermark', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(['variantId', 'runId', 'events', 'totals', 'baselines']));
    expect(doc.events.length).toBeGreaterThan(1);
    for (const e of doc.events) expect(Object.keys(e)).toEqual(expect.arrayContaining(['call', 'turn', 'reason', 'contextBefore', 'contextAfter', 'spans', 'summarizerCalls', 'tokensIn', 'tokensOut', 'costUsd']));
    expect(Object.keys(doc.totals).sort()).toEqual(['byModel', 'cacheReadTokens', 'cacheWriteTokens', 'complete', 'costUsd', 'firings', 'infeasible', 'inputTokens', 'maxDepth', 'modelCalls', 'outputTokens', 'peakContext', 'summarizerCostUsd', 'unpriced']);
    expect(doc.totals).toMatchObject({ modelCalls: 152, firings: doc.events.length });
    expect(doc.baselines.none.totals.modelCalls).toBe(152);
    // Claude Code's own compaction, with the app's estimate of the context before it.
    expect(doc.baselines.source.events).toEqual([expect.objectContaining({ turn: 207, preTokens: 167094 })]);
    expect(doc.calls).toBeUndefined();
  });

  it('export --format timeline writes one CSV row per model call of the newest replay', async () => {
    const r = JSON.parse((await cli(['replay', '1', '--strategy', 'dag', '--timeline', '--json'])).stdout);
    expect(r.calls.context).toHaveLength(152);
    const csv = await cli(['export', '1', '--variant', String(r.variantId), '--format', 'timeline']);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('call,position,timestamp,transcript_tokens,context_tokens,no_compaction_tokens,source_recorded_tokens,cache_read_tokens,cache_write_tokens,uncached_input_tokens,output_tokens,cost_usd,fired,model,context_window');
    expect(lines).toHaveLength(153);
    const fired = lines.slice(1).filter((l) => l.split(',')[12] === '1').map((l) => Number(l.split(',')[0]));
    // Each call's model and its window: every call of this session is Opus 4.6 (200k).
    expect(new Set(lines.slice(1).map((l) => l.split(',').slice(13).join(',')))).toEqual(new Set(['claude-opus-4-6,200000']));
    expect(fired).toEqual(r.events.filter((e: { kind: string }) => e.kind === 'fire').map((e: { call: number }) => e.call));
    for (const [k, l] of lines.slice(1).entries()) expect(Number(l.split(',')[4])).toBe(r.calls.context[k]);
    const same = await cli(['export', '1', '--run', String(r.runId), '--format', 'timeline']);
    expect(same.stdout).toBe(csv.stdout);
    const none = await cli(['export', '1', '--format', 'timeline']);
    expect(none).toMatchObject({ code: 2 });
    expect(none.stderr).toContain('--format timeline needs --run R or --variant V');
  });
});

describe('compact --summarizer openai', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('summarizes through the given base URL and model, and draws a progress bar on a terminal for a pass over a second', async () => {
    server.setDefault({ kind: 'delay', ms: 90 });
    const r = await cli(['compact', '1', '--strategy', 'dag', ...SET, '--summarizer', 'openai', '--base-url', server.baseURL, '--model', 'fake-model', '--concurrency', '1'], { stderrTTY: true, env: { OPENAI_API_KEY: 'sk-test' } });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(19);
    expect(server.maxInFlight()).toBe(1);
    expect(server.requests[0].headers.authorization).toBe('Bearer sk-test');
    expect(server.requests.every((q) => q.body!.model === 'fake-model')).toBe(true);
    expect(r.stdout.split('\n')[0]).toBe('Run 1 of variant 1 (dag): completed — context 204,528 calibrated tokens (140,001 transcript + 25,421 fixed + 39,106 from the tokenizer ratio 1.279) (511.3%) > threshold 30000 (0.75 × 40000)');
    expect(r.stdout).toContain('  summarizer calls: 19, cache hits: 0');
    // the bar starts after a second and ends at 19/19 on its own line
    expect(r.stderr).toMatch(/\r\[#+-*\] +\d+% {2}\d+\/19 summaries/);
    expect(r.stderr).toContain('] 100%  19/19 summaries');
    expect(r.stderr.endsWith('\n')).toBe(true);

    const variants = JSON.parse((await cli(['variants', '1', '--json'])).stdout);
    expect(variants.variants[0].summarizer).toEqual({ kind: 'openai', baseURL: server.baseURL, model: 'fake-model', promptVersion: OPENAI_PROMPT_VERSION });
    expect(fakeSummaryOf(server.requests[0].body).startsWith('Summary ')).toBe(true);
  });
});

describe('progress bar', () => {
  it('is silent before the delay and for --json to a pipe; prints quarter lines on a non-terminal', () => {
    const pipe = new Sink(false);
    const json = new ProgressBar(pipe, { jsonMode: true, stdoutIsTTY: false, delayMs: 0 });
    json.update({ done: 1, total: 4, tokens: 10 });
    expect(pipe.text).toBe('');
    const early = new ProgressBar(pipe, { jsonMode: false, stdoutIsTTY: false, delayMs: 60_000 });
    early.update({ done: 1, total: 4, tokens: 10 });
    expect(pipe.text).toBe('');
    const lines = new ProgressBar(pipe, { jsonMode: false, stdoutIsTTY: false, delayMs: 0 });
    for (let d = 0; d <= 8; d++) lines.update({ done: d, total: 8, tokens: d * 100 });
    lines.finish();
    expect(pipe.text.trim().split('\n')).toEqual([
      'progress: 0/8 summaries (0%), 0 tokens',
      'progress: 2/8 summaries (25%), 200 tokens',
      'progress: 4/8 summaries (50%), 400 tokens',
      'progress: 6/8 summaries (75%), 600 tokens',
      'progress: 8/8 summaries (100%), 800 tokens',
    ]);
  });
});

describe('clamped parameters', () => {
  it('a --set value out of range is used at the nearest allowed value, said on stderr and in --json (paramNotes)', async () => {
    // hardCapTokens min 1, preserveRecentTurns a whole number: 0 -> 1 and 2.6 -> 3.
    const r = await cli(['plan', '1', '--strategy', 'watermark', '--set', 'hardCapTokens=0', '--set', 'preserveRecentTurns=2.6', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('compaction-studio: note: hardCapTokens 0 is below the minimum 1: using 1\ncompaction-studio: note: preserveRecentTurns 2.6 is not a whole number: using 3\n');
    const plan = JSON.parse(r.stdout);
    expect(plan.params).toMatchObject({ hardCapTokens: 1, preserveRecentTurns: 3 });
    expect(plan.paramNotes).toEqual([
      { name: 'hardCapTokens', given: 0, used: 1, reason: 'is below the minimum 1', note: 'hardCapTokens 0 is below the minimum 1: using 1' },
      { name: 'preserveRecentTurns', given: 2.6, used: 3, reason: 'is not a whole number', note: 'preserveRecentTurns 2.6 is not a whole number: using 3' },
    ]);
    // compact says it too, and runs with the fitted value (rolling's compactionCount max 99).
    const c = await cli(['compact', '1', '--strategy', 'rolling', '--set', 'compactionCount=150', '--json']);
    expect(c.code).toBe(0);
    expect(c.stderr).toContain('compaction-studio: note: compactionCount 150 is above the maximum 99: using 99');
    expect(JSON.parse(c.stdout).paramNotes).toEqual([{ name: 'compactionCount', given: 150, used: 99, reason: 'is above the maximum 99', note: 'compactionCount 150 is above the maximum 99: using 99' }]);
    // An allowed value gives no note and no paramNotes field.
    const ok = await cli(['plan', '1', '--strategy', 'watermark', '--set', 'hardCapTokens=1', '--json']);
    expect(ok.stderr).toBe('');
    expect(JSON.parse(ok.stdout).paramNotes).toBeUndefined();
  });
});
