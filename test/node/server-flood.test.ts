/**
 * Bounded work per request in browser mode: a flood of uploads runs in the pool of
 * IMPORT_WORKERS import workers (the rest queued, in order), huge bodies to small operations
 * are refused at 1 MB, and a `listSessions` beside the flood is answered without waiting for
 * it (bounded loosely: this is not a benchmark, the point is that it does not queue behind).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTranscript } from '../../bench/import.js';
import { startServer, type RunningServer } from '../../electron/server/http-server.js';
import { IMPORT_WORKERS } from '../../electron/services/task-runner.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const UPLOADS = 12;
const HUGE = 10;

let tmp: TempDir;
let server: RunningServer;
beforeAll(async () => {
  tmp = tempDir('cs-flood-');
  server = await startServer({ port: 0, dbPath: tmp.dbPath, rendererDir: tmp.dir, importDemo: false });
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const call = async (op: string, body: string) => {
  const res = await fetch(`${server.origin}/api/${op}`, { method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body });
  return { status: res.status, envelope: (await res.json()) as { ok: boolean; value?: unknown; error?: { code: string; message: string } } };
};

describe('a flood of uploads in browser mode', { timeout: 300_000 }, () => {
  it(`runs at most ${IMPORT_WORKERS} imports at once, queues the rest, refuses huge small-operation bodies, and answers listSessions beside it`, async () => {
    const texts = Array.from({ length: UPLOADS }, (_, i) => {
      const file = path.join(tmp.dir, `flood-${i}.jsonl`);
      writeTranscript(file, 1_000, 100 + i);
      return fs.readFileSync(file, 'utf8');
    });
    const uploads = texts.map((text, i) => call('importText', JSON.stringify({ fileName: `flood-${i}.jsonl`, text })));
    const huge = Array.from({ length: HUGE }, () => call('renameVariant', JSON.stringify({ variantId: 1, name: 'x'.repeat(3 * 1024 * 1024) })));

    // Sampled while the flood runs: never more import workers than the pool has, and a queue.
    let maxRunning = 0;
    let maxQueued = 0;
    let pending = true;
    const all = Promise.all([...uploads, ...huge]).finally(() => (pending = false));
    const latencies: number[] = [];
    while (pending) {
      maxRunning = Math.max(maxRunning, server.service.tasks.size);
      maxQueued = Math.max(maxQueued, server.service.tasks.queuedImports);
      const started = performance.now();
      const listed = await call('listSessions', '{}');
      latencies.push(performance.now() - started);
      expect(listed.envelope.ok).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
    }
    const results = await all;

    expect(maxRunning).toBeLessThanOrEqual(IMPORT_WORKERS);
    expect(maxRunning).toBeGreaterThan(0);
    expect(maxQueued).toBeGreaterThan(0);
    const imported = results.slice(0, UPLOADS);
    expect(imported.every((r) => r.status === 200 && r.envelope.ok)).toBe(true);
    expect(results.slice(UPLOADS).map((r) => [r.status, r.envelope.error?.code])).toEqual(Array(HUGE).fill([413, 'payload_too_large']));
    const listed = await call('listSessions', '{}');
    expect((listed.envelope.value as unknown[]).length).toBe(UPLOADS);
    // Loose: the flood takes tens of seconds here; a listSessions queued behind it would take as long.
    expect(latencies.length).toBeGreaterThan(3);
    expect(Math.max(...latencies)).toBeLessThan(5_000);
  });
});
