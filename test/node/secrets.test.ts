/**
 * Secrets: the API key is bound to the endpoint origin it was entered for,
 * checked against a real HTTP listener on 127.0.0.1 that records every request's headers.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope, ImportReport, StudioEvent } from '../../shared/contract.js';
import { memorySecretStore } from '../../electron/services/secrets.js';
import { MAX_ENDPOINT_TEXT, redactSecrets } from '../../shared/redact.js';
import { createStudioService, type StudioService } from '../../electron/services/studio-service.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const KEY = 'sk-secret-origin-bound-0123456789';

let tmp: TempDir;
let service: StudioService;
let fake: FakeOpenAiServer;
let sessionId: number;
const events: StudioEvent[] = [];

function value<T>(envelope: Envelope<unknown>): T {
  if (!envelope.ok) throw new Error(`${envelope.error.code}: ${envelope.error.message}`);
  return envelope.value as T;
}

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

const withKey = () => fake.requests.filter((r) => r.headers.authorization === `Bearer ${KEY}`);

beforeAll(async () => {
  tmp = tempDir('studio-secrets-');
  fake = await startFakeOpenAiServer();
  service = await createStudioService({ dbPath: tmp.dbPath, resourcesDir: path.join(tmp.dir, 'none'), secrets: memorySecretStore({}), importDemo: false });
  service.onEvent((e) => events.push(e));
  const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}: look at src/file_${i}.ts and explain what the function number ${i} does in detail` }));
  sessionId = value<ImportReport>(await service.dispatch('importText', { fileName: 'chat.jsonl', text: lines.join('\n') })).sessions[0].id;
});

afterAll(async () => {
  await service.close();
  await fake.close();
  tmp.cleanup();
});

describe('the API key is bound to the origin it was entered for', () => {
  it('is never sent to another origin: the run is refused before any request, until the key is entered again for it', async () => {
    // Entered with the default summarizer endpoint in effect: bound to https://api.openai.com.
    value(await service.dispatch('setSettings', { apiKey: KEY }));
    // The base URL changed afterwards, without the key (what an API caller could do).
    value(await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: fake.baseURL, model: 'fake-model' } }));
    const origin = new URL(fake.baseURL).origin;
    const refused = await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: { freshTailCount: 4, leafChunkTokens: 300 }, force: true });
    expect(refused).toEqual({ ok: false, error: { code: 'forbidden', message: `the stored API key was entered for https://api.openai.com; enter it again for ${origin} (Settings) to send it there` } });
    const replay = await service.dispatch('startReplay', { sessionId, strategy: 'dag', params: {} });
    expect(replay.ok ? null : replay.error.code).toBe('forbidden');
    expect(fake.requests).toHaveLength(0);

    // Entered again with the fake server's base URL in the same request: it works there.
    value(await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: fake.baseURL, model: 'fake-model' }, apiKey: KEY }));
    const { runId } = value<{ runId: number }>(await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: { freshTailCount: 4, leafChunkTokens: 300 }, force: true }));
    expect((await finished(runId)).status).toBe('completed');
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(withKey()).toHaveLength(fake.requests.length);

    // Pointed back at another origin (another port of 127.0.0.1 is another origin): refused again.
    const other = await startFakeOpenAiServer();
    try {
      value(await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: other.baseURL, model: 'fake-model' } }));
      const again = await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: { freshTailCount: 4, leafChunkTokens: 300 }, force: true });
      expect(again.ok ? null : again.error.message).toContain(`entered for ${origin}; enter it again for ${new URL(other.baseURL).origin}`);
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('binds a key entered alone to the stored summarizer endpoint', async () => {
    value(await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: fake.baseURL, model: 'fake-model' } }));
    value(await service.dispatch('setSettings', { apiKey: KEY }));
    const before = fake.requests.length;
    const { runId } = value<{ runId: number }>(await service.dispatch('startCompaction', { sessionId, strategy: 'dag', params: { freshTailCount: 6, leafChunkTokens: 250 }, force: true }));
    expect((await finished(runId)).status).toBe('completed');
    expect(fake.requests.length).toBeGreaterThan(before);
    value(await service.dispatch('setSettings', { summarizer: { kind: 'extractive' }, apiKey: '' }));
  });
});

describe('endpoint error text is redacted and capped', () => {
  it('keeps no echoed key in run stats, events or the events the window and SSE receive', async () => {
    const secret = 'sk-secret-echoed-abcdef0123456789';
    const other = await startFakeOpenAiServer();
    try {
      // A hostile or careless endpoint: its 401 body echoes the Authorization header and more.
      other.script((req) => ({
        kind: 'status',
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${String(req.headers.authorization)}; x-api-key: ${secret}; session 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ${'padding '.repeat(200)}` } },
      }));
      value(await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: other.baseURL, model: 'fake-model-401' }, apiKey: secret }));
      const since = events.length;
      // Watermark passes the endpoint's failure on (compaction_failed event, stats reason) instead of falling back.
      const { runId, variantId } = value<{ runId: number; variantId: number }>(await service.dispatch('startCompaction', { sessionId, strategy: 'watermark', params: { softThresholdTokens: 100, preserveRecentTurns: 2 }, force: true }));
      const done = await finished(runId);
      await service.runner.whenDone(runId);
      // The key did reach its own origin, and that origin answered with it.
      expect(other.requests.length).toBeGreaterThan(0);
      expect(other.requests[0].headers.authorization).toBe(`Bearer ${secret}`);

      const runs = value<Array<{ id: number; stats: unknown; error: string | null; events: Array<{ kind: string; data: Record<string, unknown> }> }>>(await service.dispatch('listRuns', { variantId }));
      const run = runs.find((r) => r.id === runId)!;
      const stored = JSON.stringify(run);
      const emitted = JSON.stringify(events.slice(since));
      // The failure did get recorded (redacted), so the test looks at real endpoint text.
      expect(stored).toContain('Incorrect API key provided: Bearer [redacted]');
      expect(run.events.map((e) => e.kind)).toContain('compaction_failed');
      for (const text of [stored, emitted, JSON.stringify(done)]) {
        expect(text).not.toContain('sk-secret');
        expect(text).not.toContain('9f86d081884c7d659a2feaa0c55ad015');
      }
      const reasons = run.events.flatMap((e) => Object.values(e.data)).filter((v): v is string => typeof v === 'string' && v.includes('Incorrect API key'));
      expect(reasons.length).toBeGreaterThan(0);
      // Each endpoint text is capped; a failure message names both tiers' (capped) texts.
      for (const r of reasons) expect(r.length).toBeLessThanOrEqual(2 * (MAX_ENDPOINT_TEXT + 40) + 80);
      for (const r of reasons) expect(r).toContain('more characters)');
    } finally {
      value(await service.dispatch('setSettings', { summarizer: { kind: 'extractive' }, apiKey: '' }));
      await other.close();
    }
  });

  it('redactSecrets: key shapes go, ordinary text and paths stay, long text is capped', () => {
    expect(redactSecrets('401 Bearer sk-proj-AbC123xyz789_-Q and sk-abcdefgh12345678')).toBe('401 Bearer [redacted] and [redacted]');
    expect(redactSecrets('{"api_key": "hunter2-secret", "token=abc"}')).toBe('{"api_key": "[redacted]", "token=[redacted]"}');
    expect(redactSecrets('id deadbeefdeadbeefdeadbeefdeadbeef01 and eyJhbGciOiJIUzI1NiJ9abcdefghijklmnop1234')).toBe('id [redacted] and [redacted]');
    const plain = 'connect ECONNREFUSED 127.0.0.1:8080 at /home/user/projects/compaction-studio/node_modules/openai/core.js';
    expect(redactSecrets(plain)).toBe(plain);
    const long = redactSecrets('x'.repeat(2000));
    expect(long).toBe(`${'x'.repeat(MAX_ENDPOINT_TEXT)}… (1500 more characters)`);
  });
});
