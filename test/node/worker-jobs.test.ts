/**
 * Imports and deletes run in the worker (electron/services/task-runner.ts), never on the
 * thread that answers the window: another call is answered while a large import runs, a
 * main-thread write gets the lock between the chunks of a long import (whose session stays
 * hidden until complete), a cancelled import writes nothing, a delete hides the session at once and removes its rows
 * batch by batch (FTS, summaries, model calls, child sessions), an interrupted delete is
 * finished by the next start, and browser-mode uploads stream to a temp file with one
 * limit named in the 413. No timing thresholds: latency figures are in `npm run bench -- --only responsive`.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport, StudioEvent } from '../../shared/contract.js';
import { writeTranscript } from '../../bench/import.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { IMPORT_CHUNK_TURNS, importFiles, importTexts } from '../../electron/importers/import.js';
import { startServer, type RunningServer } from '../../electron/server/http-server.js';
import { memorySecretStore } from '../../electron/services/secrets.js';
import { createStudioService, type StudioService } from '../../electron/services/studio-service.js';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { deleteSessionBatch, finishDeletions, markSessionForDeletion, rowsToDelete } from '../../electron/store/session-deletion.js';
import { listSessions } from '../../electron/store/sessions.js';
import { turnsDump } from '../helpers/fixture-sessions.js';
import { tempDb, tempDir, type TempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const CC = path.join(ROOT, 'test/fixtures/claude-code');
const SPOTTER = path.join(CC, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const SMALLEST = path.join(CC, 'claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');

/** The worktrees project folder as the window sends it: one session file and its 6 subagents (+ sidecars). */
function worktreesFolder(): Array<{ fileName: string; text: string }> {
  const stem = 'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1';
  return [
    { fileName: 'worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl', text: fs.readFileSync(path.join(CC, `${stem}.jsonl`), 'utf8') },
    ...fs
      .readdirSync(CC)
      .filter((f) => f.startsWith(`${stem}__subagents__`))
      .map((f) => ({ fileName: `worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/${f.split('__subagents__')[1]}`, text: fs.readFileSync(path.join(CC, f), 'utf8') })),
  ];
}

const count = (db: DB, sql: string, ...args: unknown[]): number => db.prepare(sql).pluck().get(...args) as number;

/** Every row a set of sessions owns, table by table (FTS through its docsize shadow table: one row per indexed turn). */
function rowsOf(db: DB, ids: readonly number[]): Record<string, number> {
  const list = ids.join(',') || '-1';
  return {
    sessions: count(db, `SELECT COUNT(*) FROM sessions WHERE id IN (${list})`),
    turns: count(db, `SELECT COUNT(*) FROM turns WHERE session_id IN (${list})`),
    turnsFts: count(db, `SELECT COUNT(*) FROM turns_fts_docsize WHERE id IN (SELECT id FROM turns WHERE session_id IN (${list}))`),
    toolCycles: count(db, `SELECT COUNT(*) FROM tool_cycles WHERE session_id IN (${list})`),
    modelCalls: count(db, `SELECT COUNT(*) FROM model_calls WHERE session_id IN (${list})`),
    variants: count(db, `SELECT COUNT(*) FROM variants WHERE session_id IN (${list})`),
    runs: count(db, `SELECT COUNT(*) FROM runs WHERE variant_id IN (SELECT id FROM variants WHERE session_id IN (${list}))`),
    summaries: count(db, `SELECT COUNT(*) FROM summaries WHERE variant_id IN (SELECT id FROM variants WHERE session_id IN (${list}))`),
    marks: count(db, `SELECT COUNT(*) FROM session_deletions WHERE session_id IN (${list})`),
  };
}

/**
 * One session's turns as turnsDump (test/helpers/fixture-sessions.ts) prints them, in id order;
 * `renumber`: its ids and session id as a fresh store holding only it would give them (1..n, 1).
 */
function sessionTurnsDump(db: DB, sessionId: number, renumber = true): string {
  const rows = db.prepare('SELECT * FROM turns WHERE session_id = ? ORDER BY id').all(sessionId) as Array<{ id: number; session_id: number }>;
  const first = rows[0]?.id ?? 0;
  return JSON.stringify(renumber ? rows.map((r) => ({ ...r, id: r.id - first + 1, session_id: 1 })) : rows);
}

/** Table totals (what a cancelled import must leave unchanged). */
function totals(db: DB): Record<string, number> {
  return Object.fromEntries(['sessions', 'turns', 'turns_fts_docsize', 'tool_cycles', 'model_calls', 'external_compactions'].map((t) => [t, count(db, `SELECT COUNT(*) FROM ${t}`)]));
}

describe('deleting a session in batches (store)', () => {
  it('hides the session and its children at once, then removes every row batch by batch, FTS included', async () => {
    const t = tempDb('cs-delete-');
    try {
      const kept = importFiles(t.db, [SMALLEST]).sessions[0];
      const tree = importTexts(t.db, worktreesFolder()).sessions;
      const ids = tree.map((s) => s.id);
      // The session and its 6 linked subagents (services.test.ts imports the same folder).
      expect(tree).toHaveLength(7);
      const pass = await runCompaction(t.db, { sessionId: tree[0].id, strategy: 'dag', force: true });
      expect(pass.status).toBe('completed');
      const before = rowsOf(t.db, ids);
      for (const table of ['turns', 'turnsFts', 'toolCycles', 'modelCalls', 'summaries', 'runs'] as const) expect(before[table], table).toBeGreaterThan(0);
      expect(before.turnsFts).toBe(before.turns);

      const marked = markSessionForDeletion(t.db, tree[0].id)!;
      // Children before their parent; all 7 marked in the one quick transaction.
      expect([...marked].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
      expect(marked[marked.length - 1]).toBe(tree[0].id);
      expect(listSessions(t.db).map((s) => s.id)).toEqual([kept.id]);
      expect(markSessionForDeletion(t.db, tree[0].id)).toBeNull();
      // Nothing deleted yet: the rows go in the batches.
      expect(rowsOf(t.db, ids)).toEqual({ ...before, marks: 7 });

      const total = rowsToDelete(t.db, marked);
      let batches = 0;
      const rows = finishDeletions(t.db, marked, () => batches++, 100);
      expect(rows).toBe(total);
      // 100 rows a batch at most, and one more batch per session whose last batch was full.
      expect(batches).toBeGreaterThanOrEqual(Math.ceil(total / 100));
      expect(rowsOf(t.db, ids)).toEqual({ sessions: 0, turns: 0, turnsFts: 0, toolCycles: 0, modelCalls: 0, variants: 0, runs: 0, summaries: 0, marks: 0 });
      // What is left is exactly the other session, its FTS index consistent with its turns.
      expect(count(t.db, 'SELECT COUNT(*) FROM turns')).toBe(kept.turns);
      expect(count(t.db, 'SELECT COUNT(*) FROM turns_fts_docsize')).toBe(kept.turns);
      expect(count(t.db, 'SELECT COUNT(*) FROM summaries')).toBe(0);
      expect(count(t.db, 'SELECT COUNT(*) FROM summaries_fts_docsize')).toBe(0);
      t.db.exec(`INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check'); INSERT INTO summaries_fts(summaries_fts) VALUES ('integrity-check');`);
      // The same file imports again (its hash was freed when it was marked).
      expect(importTexts(t.db, worktreesFolder()).sessions.map((s) => s.duplicate)).toEqual(Array(7).fill(false));
    } finally {
      t.cleanup();
    }
  }, 120_000);
});

describe('imports and deletes through the service', () => {
  let tmp: TempDir;
  let service: StudioService;
  const events: StudioEvent[] = [];
  let bigFile: string;
  let smallFile: string;
  let midFile: string;

  /** Resolves once job `jobId` has told progress of at least `turns` turns. */
  const progressPast = (jobId: string, turns: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const off = service.onEvent((e) => {
        if (e.type === 'job-progress' && e.jobId === jobId && e.done >= turns) {
          off();
          resolve();
        }
      });
    });

  beforeAll(async () => {
    tmp = tempDir('cs-worker-jobs-');
    bigFile = path.join(tmp.dir, 'big.jsonl');
    smallFile = path.join(tmp.dir, 'small.jsonl');
    writeTranscript(bigFile, 200_000);
    writeTranscript(smallFile, 5_000, 7);
    midFile = path.join(tmp.dir, 'mid.jsonl');
    writeTranscript(midFile, 100_000, 11);
    service = await createStudioService({ dbPath: tmp.dbPath, resourcesDir: path.join(tmp.dir, 'none'), secrets: memorySecretStore({}), importDemo: false });
    service.onEvent((e) => events.push(e));
  }, 120_000);

  afterAll(async () => {
    await service.close();
    tmp.cleanup();
  });

  it('answers listSessions while a 200,000-turn import runs in the worker; cancelled after a chunk was committed, it leaves nothing', async () => {
    const before = totals(service.db);
    const pastFirstChunk = progressPast('big', IMPORT_CHUNK_TURNS + 1000);
    let settled = false;
    const importing = service.api.importPaths({ paths: [bigFile], jobId: 'big' }).finally(() => (settled = true));
    importing.catch(() => undefined);
    // The worker has committed its first chunk of 5,000 turns (the next progress comes after the commit)...
    await pastFirstChunk;
    expect(count(service.db, `SELECT COUNT(*) FROM turns WHERE session_id IN (SELECT id FROM sessions WHERE source_file = 'big.jsonl')`)).toBeGreaterThanOrEqual(IMPORT_CHUNK_TURNS);
    // ...and this thread answers meanwhile, without the half-imported (hidden) session.
    const listed = await service.api.listSessions({});
    expect(settled).toBe(false);
    expect(listed.map((s) => s.sourceFile)).not.toContain('big.jsonl');
    expect(await service.api.cancelJob({ jobId: 'big' })).toEqual({ cancelled: true });
    await expect(importing).rejects.toMatchObject({ code: 'cancelled' });
    // The committed chunks were deleted again before the worker said it was cancelled.
    expect(totals(service.db)).toEqual(before);
    expect(count(service.db, 'SELECT COUNT(*) FROM session_deletions')).toBe(0);
    expect(events.filter((e) => e.type === 'job-finished' && e.jobId === 'big')).toEqual([{ type: 'job-finished', jobId: 'big', kind: 'import', status: 'cancelled', error: null }]);
    expect(await service.api.cancelJob({ jobId: 'big' })).toEqual({ cancelled: false });
  }, 120_000);

  it('lets main-thread writes in between the chunks of a long import, refuses a second import of the same file meanwhile, and shows the session only once complete, row for row as one transaction writes it', async () => {
    const other = (await service.api.importPaths({ paths: [SMALLEST] })).sessions[0];
    const pastFirstChunk = progressPast('mid', IMPORT_CHUNK_TURNS + 1000);
    let settled = false;
    const importing = service.api.importPaths({ paths: [midFile], jobId: 'mid' }).finally(() => (settled = true));
    await pastFirstChunk;
    const midId = count(service.db, `SELECT id FROM sessions WHERE source_file = 'mid.jsonl'`);
    /** The import has not revealed its session yet (its last step): still marked, so hidden. */
    const stillImporting = () => count(service.db, `SELECT COUNT(*) FROM session_deletions WHERE session_id = ${midId}`) === 1;
    expect(stillImporting()).toBe(true);
    // The session is hidden meanwhile: not listed, not found by getSession.
    expect((await service.api.listSessions({})).map((s) => s.sourceFile)).not.toContain('mid.jsonl');
    await expect(service.api.getSession({ sessionId: midId })).rejects.toMatchObject({ code: 'not_found' });
    // Writes of the main thread, each of which needs the write lock the import's worker holds
    // while it writes a chunk: they get it between two chunks, before the import's last step.
    const variant = await service.api.saveVariant({ sessionId: other.id, strategy: 'window', params: {} });
    expect(stillImporting()).toBe(true);
    expect((await service.api.renameVariant({ variantId: variant.id, name: 'between chunks' })).name).toBe('between chunks');
    expect((await service.api.setSettings({ concurrency: 3 })).concurrency).toBe(3);
    expect(stillImporting()).toBe(true);
    // The same file again while it is being written: refused, never a duplicate.
    const again = service.api.importPaths({ paths: [midFile], jobId: 'mid-again' });
    await expect(again).rejects.toMatchObject({ code: 'import_error', message: 'mid.jsonl: this file is being imported right now (or an interrupted import of it is being cleaned up): try again once that has finished' });
    expect(settled).toBe(false);

    const report = await importing;
    expect(report.sessions.map((s) => [s.id, s.sourceFile, s.turns, s.duplicate])).toEqual([[midId, 'mid.jsonl', 100_000, false]]);
    expect((await service.api.listSessions({})).filter((s) => s.sourceFile === 'mid.jsonl').map((s) => s.id)).toEqual([midId]);
    expect(count(service.db, 'SELECT COUNT(*) FROM session_deletions')).toBe(0);
    // Now a duplicate, as any finished import.
    expect((await service.api.importPaths({ paths: [midFile] })).sessions.map((s) => [s.id, s.duplicate])).toEqual([[midId, true]]);
    // Row for row what one transaction writes (the same file in a fresh store, one chunk: ids and session ids renumbered).
    const one = tempDb('cs-one-transaction-');
    try {
      const oneId = importFiles(one.db, [midFile], { chunkTurns: Number.POSITIVE_INFINITY, chunkMs: Number.POSITIVE_INFINITY }).sessions[0].id;
      expect(count(one.db, 'SELECT COUNT(*) FROM turns')).toBe(100_000);
      expect(sessionTurnsDump(service.db, midId)).toBe(sessionTurnsDump(one.db, oneId));
      expect(turnsDump(one.db)).toBe(sessionTurnsDump(one.db, oneId, false));
    } finally {
      one.cleanup();
    }
  }, 300_000);

  it('imports in the worker with a progress event per 1,000 turns', async () => {
    const report = await service.api.importPaths({ paths: [smallFile], jobId: 'small' });
    expect(report.sessions.map((s) => [s.sourceFile, s.turns])).toEqual([['small.jsonl', 5000]]);
    // One at the file's start, then one per 1,000 turns written (electron/importers/writer.ts).
    const progress = events.filter((e): e is Extract<StudioEvent, { type: 'job-progress' }> => e.type === 'job-progress' && e.jobId === 'small');
    expect(progress.map((e) => e.done)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    expect(progress[5].message).toBe('5,000 turns');
  }, 60_000);

  it('removes a deleted session from the list at once and its rows in the background', async () => {
    const report = await service.api.importPaths({ paths: [SPOTTER] });
    const id = report.sessions[0].id;
    const before = rowsOf(service.db, [id]);
    // The spotter fixture: 306 turns (fixtures README), each indexed in FTS.
    expect([before.turns, before.turnsFts]).toEqual([306, 306]);
    expect(before.modelCalls).toBeGreaterThan(0);
    expect(await service.api.deleteSession({ sessionId: id })).toEqual({ deleted: true });
    // Straight after the answer, before the worker's batches: gone from every listing.
    expect((await service.api.listSessions({})).map((s) => s.id)).not.toContain(id);
    await expect(service.api.getSession({ sessionId: id })).rejects.toMatchObject({ code: 'not_found' });
    await service.tasks.whenDeletesDone();
    expect(rowsOf(service.db, [id])).toEqual({ sessions: 0, turns: 0, turnsFts: 0, toolCycles: 0, modelCalls: 0, variants: 0, runs: 0, summaries: 0, marks: 0 });
    expect(events.filter((e) => e.type === 'job-finished' && e.jobId === `delete-${id}`)).toEqual([{ type: 'job-finished', jobId: `delete-${id}`, kind: 'delete', status: 'completed', error: null }]);
  }, 60_000);
});

describe('an interrupted delete', () => {
  it('is finished by the next start of the service', async () => {
    const tmp = tempDir('cs-resume-delete-');
    try {
      const db = openDatabase(tmp.dbPath);
      const kept = importFiles(db, [SMALLEST]).sessions[0];
      const id = importFiles(db, [SPOTTER]).sessions[0].id;
      markSessionForDeletion(db, id);
      // One batch, then the process "dies".
      expect(deleteSessionBatch(db, id, 100)).toEqual({ rows: 100, finished: false });
      expect(rowsOf(db, [id]).turns).toBeGreaterThan(0);
      // The marking process is gone (a pid above Linux's pid_max): its mark is pending (migration 13 records owners).
      db.prepare('UPDATE session_deletions SET owner_pid = 4194999').run();
      db.close();

      const service = await createStudioService({ dbPath: tmp.dbPath, resourcesDir: path.join(tmp.dir, 'none'), secrets: memorySecretStore({}), importDemo: false });
      try {
        expect((await service.api.listSessions({})).map((s) => s.id)).toEqual([kept.id]);
        await service.tasks.whenDeletesDone();
        expect(rowsOf(service.db, [id])).toEqual({ sessions: 0, turns: 0, turnsFts: 0, toolCycles: 0, modelCalls: 0, variants: 0, runs: 0, summaries: 0, marks: 0 });
        expect(count(service.db, 'SELECT COUNT(*) FROM turns')).toBe(kept.turns);
      } finally {
        await service.close();
      }
    } finally {
      tmp.cleanup();
    }
  }, 60_000);
});

describe('browser-mode uploads', () => {
  let tmp: TempDir;
  let server: RunningServer;
  let uploadDir: string;
  const LIMIT = 8 * 1024 * 1024;

  beforeAll(async () => {
    tmp = tempDir('cs-upload-');
    uploadDir = path.join(tmp.dir, 'uploads');
    fs.mkdirSync(uploadDir);
    server = await startServer({ port: 0, dbPath: tmp.dbPath, rendererDir: tmp.dir, importDemo: false, maxBodyBytes: LIMIT, uploadDir });
  });

  afterAll(async () => {
    await server.close();
    tmp.cleanup();
  });

  /** Names created in the upload folder while `fn` runs (inotify through fs.watch). */
  async function watchUploads<T>(fn: () => Promise<T>): Promise<{ result: T; seen: string[] }> {
    const seen = new Set<string>();
    const watcher = fs.watch(uploadDir, (_event, name) => {
      if (name) seen.add(name.toString());
    });
    try {
      const result = await fn();
      return { result, seen: [...seen] };
    } finally {
      watcher.close();
    }
  }

  /** POSTs `chunks` as a chunked body (no Content-Length: the limit must be counted as it streams). */
  function postChunked(op: string, chunks: Buffer[]): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = http.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: `/api/${op}`, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' } }, (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      });
      // The server closes the connection after its 413: later writes may fail, the answer stands.
      req.on('error', (err) => {
        if (!answered) reject(err);
      });
      let i = 0;
      const writeMore = () => {
        while (i < chunks.length && !answered) {
          if (!req.write(chunks[i++])) return void req.once('drain', writeMore);
        }
        req.end();
      };
      writeMore();
    });
  }

  it('refuses a streamed body over the limit with 413 naming it, after spooling to a temp file it then deletes', async () => {
    const mb = Buffer.alloc(1024 * 1024, 'x');
    const chunks = [Buffer.from('{"fileName":"big.jsonl","text":"'), ...Array.from({ length: 10 }, () => mb), Buffer.from('"}')];
    const { result, seen } = await watchUploads(() => postChunked('importText', chunks));
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body)).toEqual({ ok: false, error: { code: 'payload_too_large', message: 'request body larger than 8 MB; import a file this large from the command line (compaction-studio import FILE --db …)' } });
    // Past the first 1 MB the body went to disk, not to memory.
    expect(seen.some((n) => /^upload-[0-9a-f-]+\.json$/.test(n))).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(fs.readdirSync(uploadDir)).toEqual([]);
  });

  it('imports a 2.7 MB transcript from its temp file in the worker, with the exact counts', async () => {
    const body = Buffer.from(JSON.stringify({ fileName: path.basename(SPOTTER), text: fs.readFileSync(SPOTTER, 'utf8'), jobId: 'upload-1' }));
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const chunks = Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536));
    const { result, seen } = await watchUploads(() => postChunked('importText', chunks));
    expect(result.status).toBe(200);
    const report = (JSON.parse(result.body) as { ok: true; value: ImportReport }).value;
    // The spotter fixture as stored (o200k_base): 306 turns, 140,001 tokens (services.test.ts).
    expect(report.sessions.map((s) => [s.title, s.turns, s.tokens])).toEqual([['Implement spotter-gqc', 306, 140001]]);
    expect(seen.some((n) => /^upload-[0-9a-f-]+\.json$/.test(n))).toBe(true);
    expect(fs.readdirSync(uploadDir)).toEqual([]);
  }, 60_000);

  it('answers an upload that is not JSON with 400 bad_json, from the worker', async () => {
    const chunks = [Buffer.from('{"fileName":"x.jsonl","text":"'), Buffer.alloc(2 * 1024 * 1024, 'y'), Buffer.from('"')];
    const result = await postChunked('importText', chunks);
    expect(result.status).toBe(400);
    expect((JSON.parse(result.body) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'bad_json' });
    expect(JSON.parse(result.body).error.message.length).toBeLessThan(200);
    expect(fs.readdirSync(uploadDir)).toEqual([]);
  });
});
