/**
 * The StudioService both transports share, on real fixtures in a temporary SQLite file:
 * imports through the service, passes in a worker thread with progress and completion
 * events, cancellation against a summarizer that never answers, and the API key that
 * is used but never reported back or stored in the database.
 */
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope, ImportReport, StudioEvent } from '../../shared/contract.js';
import { memorySecretStore } from '../../electron/services/secrets.js';
import { createStudioService, type StudioService } from '../../electron/services/studio-service.js';
import { API_KEY_FILE, safeStorageSecretStore, type SafeStorageLike } from '../../electron/shell/settings.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const SPOTTER = path.join(FIXTURES, 'claude-code', 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const SMALLEST = path.join(FIXTURES, 'claude-code', 'claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');

let tmp: TempDir;
let dir: string;
let service: StudioService;
const events: StudioEvent[] = [];

function value<T>(envelope: Envelope<unknown>): T {
  if (!envelope.ok) throw new Error(`${envelope.error.code}: ${envelope.error.message}`);
  return envelope.value as T;
}

/** Resolves with the run-finished event of `runId` (already received or still to come). */
function finished(runId: number): Promise<Extract<StudioEvent, { type: 'run-finished' }>> {
  const match = (e: StudioEvent): e is Extract<StudioEvent, { type: 'run-finished' }> => e.type === 'run-finished' && e.runId === runId;
  const seen = events.find(match);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const off = service.onEvent((e) => {
      if (match(e)) {
        off();
        resolve(e);
      }
    });
  });
}

beforeAll(async () => {
  tmp = tempDir('studio-services-');
  dir = tmp.dir;
  service = await createStudioService({ dbPath: tmp.dbPath, resourcesDir: path.join(dir, 'none'), secrets: memorySecretStore({}), importDemo: false });
  service.onEvent((e) => events.push(e));
});

afterAll(async () => {
  await service.close();
  tmp.cleanup();
});

describe('importing through the service', () => {
  let spotterId: number;

  it('imports a real Claude Code session by path with its exact counts and announces it', async () => {
    const before = events.length;
    const report = value<ImportReport>(await service.dispatch('importPaths', { paths: [SPOTTER], jobId: 'spotter' }));
    const parent = report.sessions[0];
    spotterId = parent.id;
    // The spotter fixture as stored (o200k_base): 306 turns, 140,001 tokens.
    expect(parent).toMatchObject({ title: 'Implement spotter-gqc', format: 'claude-code', turns: 306, tokens: 140001, toolCalls: 186, externalCompactions: 1, duplicate: false, parentSessionId: null });
    // The import ran in the worker: its progress (one file begun; 306 turns is under the
    // 1,000-turn progress step), its end, then the list changed.
    expect(events.slice(before)).toEqual([
      { type: 'job-progress', jobId: 'spotter', kind: 'import', done: 0, total: 0, message: '0 turns' },
      { type: 'job-finished', jobId: 'spotter', kind: 'import', status: 'completed', error: null },
      { type: 'sessions-changed' },
    ]);
    const detail = value<{ externalCompactions_: Array<{ trigger: string; preTokens: number | null }> }>(await service.dispatch('getSession', { sessionId: spotterId }));
    // Claude Code's own automatic compaction of this session (fixtures README).
    expect(detail.externalCompactions_.map((e) => [e.trigger, e.preTokens])).toEqual([['auto', 167094]]);
  });

  it('imports file contents sent by the window, and reports the second copy as a duplicate', async () => {
    const text = fs.readFileSync(SMALLEST, 'utf8');
    const first = value<ImportReport>(await service.dispatch('importText', { fileName: path.basename(SMALLEST), text }));
    expect(first.sessions.map((s) => [s.format, s.duplicate])).toEqual([['claude-code', false]]);
    const again = value<ImportReport>(await service.dispatch('importText', { fileName: 'renamed.jsonl', text }));
    expect(again.sessions.map((s) => [s.id, s.duplicate])).toEqual([[first.sessions[0].id, true]]);
  });

  it('imports several files sent at once (a dropped project folder) in one call, subagents linked to their session', async () => {
    const cc = path.join(ROOT, 'test/fixtures/claude-code');
    const stem = 'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1';
    const files = [
      { fileName: 'worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl', text: fs.readFileSync(path.join(cc, `${stem}.jsonl`), 'utf8') },
      ...fs
        .readdirSync(cc)
        .filter((f) => f.startsWith(`${stem}__subagents__`))
        .map((f) => ({ fileName: `worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/${f.split('__subagents__')[1]}`, text: fs.readFileSync(path.join(cc, f), 'utf8') })),
    ];
    // 6 agent-*.jsonl and their 6 .meta.json sidecars.
    expect(files).toHaveLength(13);
    const report = value<ImportReport>(await service.dispatch('importTexts', { files }));
    const parent = report.sessions[0];
    expect(report.sessions).toHaveLength(7);
    expect(report.sessions.filter((s) => s.parentSessionId === parent.id)).toHaveLength(6);
  });

  it('reports a broken file as import_error naming the file and line, and changes nothing', async () => {
    const sessionsBefore = value<unknown[]>(await service.dispatch('listSessions', {}));
    const result = await service.dispatch('importText', { fileName: 'broken.jsonl', text: '{"type":"user","message":{"role":"user","content":"hi"}}\n{not json\n' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('import_error');
    expect(result.error.message).toContain('broken.jsonl');
    expect(result.error.message).toContain('line 2');
    expect(value<unknown[]>(await service.dispatch('listSessions', {}))).toEqual(sessionsBefore);
  });

  it('serves the turn columns and a page of turns of the imported session', async () => {
    const metas = value<{ ids: number[]; roles: string[]; tokens: number[] }>(await service.dispatch('turnMetas', { sessionId: spotterId }));
    expect(metas.ids.length).toBe(306);
    expect(metas.tokens.reduce((a, b) => a + b, 0)).toBe(140001);
    const page = value<Array<{ position: number }>>(await service.dispatch('listTurns', { sessionId: spotterId, from: 10, to: 20 }));
    expect(page.map((t) => t.position)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('serves the session usage: calls, transcript before each, and the overhead fit', async () => {
    const usage = value<{ calls: Array<{ position: number }>; transcriptBefore: number[]; overhead: { calls: number; a: number } | null }>(
      await service.dispatch('sessionUsage', { sessionId: spotterId }),
    );
    expect(usage.calls).toHaveLength(152);
    expect(usage.transcriptBefore).toHaveLength(152);
    expect(usage.overhead?.calls).toBe(102);
    const missing = await service.dispatch('sessionUsage', { sessionId: 999999 });
    expect(missing.ok ? null : missing.error.code).toBe('not_found');
    const invalid = await service.dispatch('sessionUsage', { sessionId: 'x' });
    expect(invalid.ok).toBe(false);
  });

  it('runs a dag pass in a worker thread and reports progress, then completion', async () => {
    // Before the pass the parameters are a draft: no variant; the model sees the session's total (visibleTokens: turns at their stored counts).
    expect(value(await service.dispatch('findVariant', { sessionId: spotterId, strategy: 'dag', params: {} }))).toBeNull();
    const before = 140001;
    const { runId, variantId } = value<{ runId: number; variantId: number }>(await service.dispatch('startCompaction', { sessionId: spotterId, strategy: 'dag', params: {}, force: true }));
    const workerThread = service.runner.threadIdOf(runId);
    expect(workerThread).not.toBeNull();
    expect(workerThread).not.toBe(threadId);
    const done = await finished(runId);
    expect(done.status).toBe('completed');
    expect(done.error).toBeNull();

    const progress = events.filter((e): e is Extract<StudioEvent, { type: 'run-progress' }> => e.type === 'run-progress' && e.runId === runId);
    const total = progress[progress.length - 1].total;
    expect(progress.map((p) => p.done)).toEqual(Array.from({ length: total + 1 }, (_, i) => i));
    // Every projected summary was written: 10 leaves of ~20,000 tokens (fresh tail of 16 kept) and one condensed parent.
    expect(done.stats).toMatchObject({ leafSummariesCreated: 10, condensedSummariesCreated: 1, summarizerCalls: 11, cacheHits: 0, tokensBefore: before });
    const summaries = value<Array<{ depth: number; compacted: boolean }>>(await service.dispatch('listSummaries', { variantId }));
    expect(summaries.filter((s) => s.depth === 0).length).toBe(10);
    expect(summaries.filter((s) => s.depth === 1).length).toBe(1);
    expect(total).toBe(11);

    const runs = value<Array<{ id: number; status: string; stats: Record<string, unknown> }>>(await service.dispatch('listRuns', { variantId }));
    expect(runs.map((r) => [r.id, r.status])).toEqual([[runId, 'completed']]);
    expect(runs[0].stats).toEqual(done.stats);

    // The variant the window looks up for the same choice is the one the pass created and wrote into.
    const resolved = value<{ id: number; summaries: number }>(await service.dispatch('findVariant', { sessionId: spotterId, strategy: 'dag', params: {} }));
    expect(resolved).toMatchObject({ id: variantId, summaries: 11 });

    const replay = value<{ messages: Array<{ tokens: number }>; totalTokens: number }>(await service.dispatch('replay', { variantId }));
    expect(replay.totalTokens).toBe(replay.messages.reduce((a, m) => a + m.tokens, 0));
    // The run's tokensAfter is the window's figure (visibleTokens); the replay counts the message list as sent (headers, glue).
    expect(Number(done.stats.tokensAfter)).toBeLessThan(140001);
    expect(replay.totalTokens).toBeLessThan(140001);
  });

  it('exports the variant the window shows, carrying its live summaries, and leaves saving to the window in browser mode', async () => {
    const variant = value<{ id: number }>(await service.dispatch('findVariant', { sessionId: spotterId, strategy: 'dag', params: {} }));
    const file = value<{ fileName: string; mimeType: string; content: string }>(await service.dispatch('exportVariant', { variantId: variant.id, format: 'openai' }));
    expect([file.fileName, file.mimeType]).toEqual([`implement-spotter-gqc-dag-v${variant.id}.openai.json`, 'application/json']);
    const exported = JSON.parse(file.content) as { messages: Array<{ role: string }> };
    const replay = value<{ messages: unknown[] }>(await service.dispatch('replay', { variantId: variant.id }));
    expect(exported.messages.length).toBeGreaterThanOrEqual(replay.messages.length);
    const live = value<Array<{ text: string; compacted: boolean }>>(await service.dispatch('listSummaries', { variantId: variant.id })).filter((x) => !x.compacted);
    expect(live.length).toBeGreaterThan(0);
    for (const summary of live) expect(file.content).toContain(JSON.stringify(summary.text).slice(1, -1));
    // No native dialog without Electron: the window downloads the content itself.
    expect(value(await service.dispatch('saveExport', { fileName: file.fileName, content: file.content }))).toEqual({ savedTo: null });
  });

  it('accepts the next pass as soon as the previous one reported completion; with nothing new it skips without a summarizer call', async () => {
    const { runId } = value<{ runId: number }>(await service.dispatch('startCompaction', { sessionId: spotterId, strategy: 'dag', params: {}, force: true }));
    const done = await finished(runId);
    expect(done.status).toBe('skipped');
    expect(done.stats.summarizerCalls).toBe(0);
  });

  it('rejects bad parameters before starting a worker', async () => {
    const result = await service.dispatch('startCompaction', { sessionId: spotterId, strategy: 'rolling', params: { compactionCount: 150 } });
    expect(result).toEqual({ ok: false, error: { code: 'invalid_input', message: 'invalid input for startCompaction: parameter compactionCount must be between 1 and 99, got 150' } });
  });
});

describe('cancelling a pass', () => {
  let fake: FakeOpenAiServer;
  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('aborts a pass whose summarizer never answers, leaving no summaries, and refuses a second pass meanwhile', async () => {
    fake.setDefault({ kind: 'hang' });
    const settings = value<{ hasApiKey: boolean }>(await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: fake.baseURL, model: 'fake-model' }, apiKey: 'sk-test-cancel-0001', concurrency: 1 }));
    expect(settings.hasApiKey).toBe(true);
    const report = value<ImportReport>(await service.dispatch('importPaths', { paths: [path.join(FIXTURES, 'openai', 'tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json')] }));
    const sessionId = report.sessions[0].id;

    const { runId, variantId } = value<{ runId: number; variantId: number }>(await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: { freshTailCount: 4, leafChunkTokens: 1000 }, force: true }));
    await fake.waitForRequests(1);
    // The key reached the summarizer in the worker…
    expect(fake.requests[0].headers.authorization).toBe('Bearer sk-test-cancel-0001');
    const busy = await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: {}, force: true });
    expect(busy.ok ? null : busy.error.code).toBe('busy');

    expect(value<{ cancelled: boolean }>(await service.dispatch('cancelCompaction', { runId }))).toEqual({ cancelled: true });
    const done = await finished(runId);
    expect(done.status).toBe('cancelled');
    await service.runner.whenDone(runId);
    const runs = value<Array<{ status: string; error: string | null }>>(await service.dispatch('listRuns', { variantId }));
    expect(runs.map((r) => r.status)).toEqual(['cancelled']);
    expect(value<unknown[]>(await service.dispatch('listSummaries', { variantId }))).toEqual([]);
    expect(value<{ cancelled: boolean }>(await service.dispatch('cancelCompaction', { runId }))).toEqual({ cancelled: false });
    await service.dispatch('setSettings', { summarizer: { kind: 'extractive' }, apiKey: '', concurrency: 4 });
  });
});

describe('cancelling a long extractive pass', () => {
  it('stops between summaries although the extractive summarizer never awaits I/O', async () => {
    // 6,000 generated turns, leaf chunks of 300 tokens: hundreds of synchronous summaries.
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const role = i % 2 === 0 ? 'user' : 'assistant';
      lines.push(JSON.stringify({ role, content: `turn ${i}: please check src/module_${i % 97}.ts and run npm test -- --grep case${i}; the error code was E${1000 + (i % 500)} and the next step is to fix it before release ${i % 13}` }));
    }
    const report = value<ImportReport>(await service.dispatch('importText', { fileName: 'long-chat.jsonl', text: lines.join('\n') }));
    const sessionId = report.sessions[0].id;
    const progressed = new Promise<void>((resolve) => {
      const off = service.onEvent((e) => {
        if (e.type === 'run-progress' && e.done >= 1) {
          off();
          resolve();
        }
      });
    });
    const { runId, variantId } = value<{ runId: number; variantId: number }>(await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: { freshTailCount: 4, leafChunkTokens: 300 }, force: true }));
    await progressed;
    expect(value<{ cancelled: boolean }>(await service.dispatch('cancelCompaction', { runId }))).toEqual({ cancelled: true });
    const done = await finished(runId);
    expect(done.status).toBe('cancelled');
    await service.runner.whenDone(runId);
    expect(value<unknown[]>(await service.dispatch('listSummaries', { variantId }))).toEqual([]);
    // Cancelled by the worker itself (the abort reached it), not by terminating it.
    const runs = value<Array<{ status: string; events: Array<{ kind: string }> }>>(await service.dispatch('listRuns', { variantId }));
    expect(runs.map((r) => r.status)).toEqual(['cancelled']);
    expect(runs[0].events.map((e) => e.kind)).not.toContain('worker_failed');
  });
});

describe('two-line: one task per conversation, the same variant asked again', () => {
  it('a request while the session\'s two-line pass runs only marks it to run once more', async () => {
    const fake = await startFakeOpenAiServer();
    fake.setDefault({ kind: 'delay', ms: 400 });
    try {
      await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: fake.baseURL, model: 'fake-model' }, apiKey: 'sk-test-two-line', concurrency: 1 });
      const report = value<ImportReport>(await service.dispatch('importPaths', { paths: [path.join(FIXTURES, 'openhands', 'OpenHands__multi_swe_bench_examples_output__line0__ponylang__ponyc-4595.json')] }));
      const sessionId = report.sessions[0].id;
      // Warning line crossed (low contextWindow), small chunks: several slow model calls.
      const params = { contextWindow: 20000, warningPct: 10, emergencyPct: 99, keepLast: 4, minBatch: 2, chunkChars: 4000, concurrency: 1 };
      const first = value<{ runId: number; variantId: number; rerunQueued?: boolean }>(await service.dispatch('startCompaction', { sessionId, strategy: 'two-line', params }));
      expect(first.rerunQueued).toBeUndefined();
      await fake.waitForRequests(1);
      const second = value<{ runId: number; rerunQueued?: boolean }>(await service.dispatch('startCompaction', { sessionId, strategy: 'two-line', params }));
      const third = value<{ runId: number; rerunQueued?: boolean }>(await service.dispatch('startCompaction', { sessionId, strategy: 'two-line', params }));
      expect(second).toEqual({ runId: first.runId, variantId: first.variantId, rerunQueued: true });
      expect(third).toEqual({ runId: first.runId, variantId: first.variantId, rerunQueued: true });
      // Another strategy on the same session meanwhile is refused, not queued.
      const other = await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: {}, force: true });
      expect(other.ok ? null : other.error.code).toBe('busy');

      expect((await finished(first.runId)).status).toBe('completed');
      // Exactly one more run follows (three requests while running collapse into one rerun):
      // once the session's two-line task is idle (its rerun ended, none marked), nothing else can start.
      await service.runner.whenTwoLineIdle(sessionId);
      const runs = value<Array<{ id: number; status: string }>>(await service.dispatch('listRuns', { variantId: first.variantId }));
      expect(runs.map((r) => r.status)).toEqual(['completed', expect.stringMatching(/^(completed|skipped)$/)]);
      await service.runner.whenDone(runs[1].id);
      expect(value<unknown[]>(await service.dispatch('listRuns', { variantId: first.variantId }))).toHaveLength(2);
    } finally {
      await service.dispatch('setSettings', { summarizer: { kind: 'extractive' }, apiKey: '', concurrency: 4 });
      await fake.close();
    }
  });
});

describe('two-line: one task per conversation (session, variant)', () => {
  it('three variants of one session each get their own run; a request while its own pass runs marks one follow-up for that variant only', async () => {
    const fake = await startFakeOpenAiServer();
    // The model answers nothing until the test has asked again (no race with a loaded machine).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    fake.setDefault({ kind: 'wait', until: held });
    try {
      await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: fake.baseURL, model: 'fake-model' }, apiKey: 'sk-test-two-line', concurrency: 1 });
      const report = value<ImportReport>(await service.dispatch('importPaths', { paths: [path.join(FIXTURES, 'openhands', 'OpenHands__multi_swe_bench_examples_output__line0__ponylang__ponyc-4595.json')] }));
      const sessionId = report.sessions[0].id;
      const paramsOf = (keepLast: number) => ({ contextWindow: 20000, warningPct: 10, emergencyPct: 99, keepLast, minBatch: 2, chunkChars: 4000, concurrency: 1 });
      type Started = { runId: number; variantId: number; rerunQueued?: boolean };
      const start = async (keepLast: number) => value<Started>(await service.dispatch('startCompaction', { sessionId, strategy: 'two-line', params: paramsOf(keepLast) }));
      // Three conversations of one session, asked at once.
      // (keepLast 4 is the variant the test above compacted on this session.)
      const [a, b, c] = await Promise.all([start(5), start(6), start(7)]);
      for (const r of [a, b, c]) expect(r.rerunQueued).toBeUndefined();
      expect(new Set([a.variantId, b.variantId, c.variantId]).size).toBe(3);
      expect(new Set([a.runId, b.runId, c.runId]).size).toBe(3);
      // While they run: a asked twice more (one mark), b once (one mark), c not at all.
      const a2 = await start(5);
      const a3 = await start(5);
      const b2 = await start(6);
      expect([a2, a3]).toEqual([{ ...a, rerunQueued: true }, { ...a, rerunQueued: true }]);
      expect(b2).toEqual({ ...b, rerunQueued: true });
      // Another strategy on the session is still refused while any of them runs.
      const other = await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: {}, force: true });
      expect(other.ok ? null : other.error.code).toBe('busy');
      release();

      for (const r of [a, b, c]) expect((await finished(r.runId)).status).toBe('completed');
      await Promise.all([a, b, c].map(() => service.runner.whenTwoLineIdle(sessionId)));
      const runsOf = async (variantId: number) => value<Array<{ id: number; status: string }>>(await service.dispatch('listRuns', { variantId }));
      for (const [r, n] of [[a, 2], [b, 2], [c, 1]] as const) {
        const runs = await runsOf(r.variantId);
        expect(runs, `variant ${r.variantId}`).toHaveLength(n);
        for (const run of runs) await service.runner.whenDone(run.id);
      }
      expect((await runsOf(a.variantId)).map((r) => r.status)).toEqual(['completed', expect.stringMatching(/^(completed|skipped)$/)]);
    } finally {
      release();
      await service.dispatch('setSettings', { summarizer: { kind: 'extractive' }, apiKey: '', concurrency: 4 });
      await fake.close();
    }
  });
});

describe('closing the service mid-pass', () => {
  it('stops the worker and leaves the run cancelled, not running', async () => {
    const fake = await startFakeOpenAiServer();
    fake.setDefault({ kind: 'hang' });
    const dbPath = path.join(dir, 'closing.db');
    const svc = await createStudioService({ dbPath, resourcesDir: dir, secrets: memorySecretStore({ OPENAI_API_KEY: 'sk-test-close', OPENAI_BASE_URL: fake.baseURL }), importDemo: false });
    try {
      await svc.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: fake.baseURL, model: 'fake-model' } });
      const report = value<ImportReport>(await svc.dispatch('importPaths', { paths: [SMALLEST] }));
      const { runId } = value<{ runId: number }>(await svc.dispatch('startCompaction', { sessionId: report.sessions[0].id, strategy: 'dag', params: { freshTailCount: 2, leafChunkTokens: 500 }, force: true }));
      await fake.waitForRequests(1);
      await svc.close();
      const check = await createStudioService({ dbPath, resourcesDir: dir, secrets: memorySecretStore({}), importDemo: false });
      const row = check.db.prepare('SELECT status FROM runs WHERE id = ?').get(runId) as { status: string };
      expect(row.status).toBe('cancelled');
      await check.close();
    } finally {
      await fake.close();
    }
  });
});

describe('the API key', () => {
  it('is reported only as hasApiKey and never stored in the database', async () => {
    const set = await service.dispatch('setSettings', { apiKey: 'sk-secret-never-shown-42' });
    expect(JSON.stringify(set)).not.toContain('sk-secret');
    expect(value<{ hasApiKey: boolean }>(set).hasApiKey).toBe(true);
    const got = await service.dispatch('getSettings', {});
    expect(JSON.stringify(got)).not.toContain('sk-secret');
    const rows = service.db.prepare('SELECT key, value FROM settings').all();
    expect(JSON.stringify(rows)).not.toContain('sk-secret');
    expect(value<{ hasApiKey: boolean }>(await service.dispatch('setSettings', { apiKey: '' })).hasApiKey).toBe(false);
  });

  it('is kept encrypted with safeStorage in Electron, or only in memory when the OS has no encryption', () => {
    const userDataDir = tempDir('studio-userdata-');
    const userData = userDataDir.dir;
    // Stand-in for Electron's safeStorage (the OS keychain): a reversible transform.
    const available: SafeStorageLike = {
      isEncryptionAvailable: () => true,
      encryptString: (s) => Buffer.from(`enc:${Buffer.from(s).toString('base64')}`),
      decryptString: (b) => Buffer.from(b.toString().slice(4), 'base64').toString(),
    };
    const store = safeStorageSecretStore(userData, available, {});
    store.setApiKey('sk-live-123');
    const file = path.join(userData, API_KEY_FILE);
    expect(fs.readFileSync(file, 'utf8')).toBe(`enc:${Buffer.from(JSON.stringify({ key: 'sk-live-123', origin: 'https://api.openai.com' })).toString('base64')}`);
    expect(safeStorageSecretStore(userData, available, {}).getApiKey()).toBe('sk-live-123');
    // A file written before keys carried their origin: the bare key, for api.openai.com.
    fs.writeFileSync(file, available.encryptString('sk-legacy-1'));
    const legacy = safeStorageSecretStore(userData, available, {});
    expect([legacy.getApiKey(), legacy.getApiKeyOrigin()]).toEqual(['sk-legacy-1', 'https://api.openai.com']);
    store.setApiKey('');
    expect(fs.existsSync(file)).toBe(false);
    expect(store.getApiKey()).toBeNull();

    const warnings: string[] = [];
    const noKeyring = safeStorageSecretStore(userData, { ...available, isEncryptionAvailable: () => false }, { OPENAI_API_KEY: 'sk-from-env' }, (m) => warnings.push(m));
    expect(noKeyring.getApiKey()).toBe('sk-from-env');
    noKeyring.setApiKey('sk-typed-in');
    expect(noKeyring.getApiKey()).toBe('sk-typed-in');
    expect(fs.readdirSync(userData)).toEqual([]);
    expect(warnings).toEqual(['This system offers no encryption for secrets (Electron safeStorage is unavailable), so the API key is kept in memory until the app quits; set OPENAI_API_KEY to avoid entering it each time.']);
    expect(noKeyring.storageWarning?.()).toBe(warnings[0]);
    expect(store.storageWarning?.()).toBeNull();
    userDataDir.cleanup();
  });
});

describe('starting the service', () => {
  it('imports the bundled demo session on the first start only, and not again after the user deleted it', async () => {
    const dbPath = path.join(dir, 'demo.db');
    const resourcesDir = path.join(ROOT, 'resources');
    const first = await createStudioService({ dbPath, resourcesDir, secrets: memorySecretStore({}) });
    const sessions = value<Array<{ id: number; sourceFile: string; format: string; turns: number; tokens: number; toolCalls: number }>>(await first.dispatch('listSessions', {}));
    expect(sessions.map(({ sourceFile, format, turns, tokens, toolCalls }) => ({ sourceFile, format, turns, tokens, toolCalls }))).toEqual([
      { sourceFile: 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl', format: 'claude-code', turns: 306, tokens: 140001, toolCalls: 186 },
    ]);
    expect(value(await first.dispatch('deleteSession', { sessionId: sessions[0].id }))).toEqual({ deleted: true });
    await first.close();
    const second = await createStudioService({ dbPath, resourcesDir, secrets: memorySecretStore({}) });
    expect(value(await second.dispatch('listSessions', {}))).toEqual([]);
    await second.close();
  });

  it('marks runs left running by a killed process as failed', async () => {
    const dbPath = path.join(dir, 'stale.db');
    const first = await createStudioService({ dbPath, resourcesDir: dir, secrets: memorySecretStore({}), importDemo: false });
    const report = value<ImportReport>(await first.dispatch('importPaths', { paths: [SMALLEST] }));
    const variant = value<{ id: number }>(await first.dispatch('saveVariant', { sessionId: report.sessions[0].id, strategy: 'dag', params: {} }));
    first.db.prepare("INSERT INTO runs(variant_id, started_at, status, params) VALUES (?, '2026-01-01T00:00:00Z', 'running', '{}')").run(variant.id);
    await first.close();
    const second = await createStudioService({ dbPath, resourcesDir: dir, secrets: memorySecretStore({}), importDemo: false });
    const runs = value<Array<{ status: string; error: string | null }>>(await second.dispatch('listRuns', { variantId: variant.id }));
    expect(runs).toMatchObject([{ status: 'failed', error: 'interrupted: the process stopped during the run' }]);
    await second.close();
  });
});
