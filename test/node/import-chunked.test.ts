/**
 * A long import commits in chunks (electron/importers/import.ts, `chunkTurns`): another
 * connection sees nothing of it until the end (its sessions are hidden under the delete
 * mark), the result is row for row what one transaction writes, a failure or cancel part-way
 * leaves the store as it was, and an import killed with SIGKILL between chunks is finished as
 * a delete by the next start of the service. The window's view of it (a main-thread write
 * between chunks, a second import of the same file) is in worker-jobs.test.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { writeTranscript } from '../../bench/import.js';
import { IMPORT_CHUNK_MS, importFiles } from '../../electron/importers/import.js';
import { memorySecretStore } from '../../electron/services/secrets.js';
import { createStudioService } from '../../electron/services/studio-service.js';
import { openDatabase, writeTransaction, type DB } from '../../electron/store/db.js';
import { readSetting, writeSetting } from '../../electron/store/settings.js';
import { listSessions } from '../../electron/store/sessions.js';
import { searchTurns } from '../../electron/store/turns.js';
import { dbSnapshot } from '../helpers/db-snapshot.js';
import { turnsDump } from '../helpers/fixture-sessions.js';
import { tempDb, tempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const CC = path.join(ROOT, 'test/fixtures/claude-code');
const SMALLEST = path.join(CC, 'claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const count = (db: DB, sql: string): number => db.prepare(sql).pluck().get() as number;

/** Every imported row but the import time (the one column two imports of the same files differ in). */
function importedRows(db: DB): Record<string, string> {
  return {
    turns: turnsDump(db),
    sessions: JSON.stringify(db.prepare('SELECT * FROM sessions ORDER BY id').all().map((r) => ({ ...(r as object), created_at: null }))),
    toolCycles: JSON.stringify(db.prepare('SELECT * FROM tool_cycles ORDER BY rowid').all()),
    modelCalls: JSON.stringify(db.prepare('SELECT * FROM model_calls ORDER BY rowid').all()),
    externalCompactions: JSON.stringify(db.prepare('SELECT * FROM external_compactions ORDER BY rowid').all()),
    fts: JSON.stringify(db.prepare('SELECT rowid, text FROM turns_fts ORDER BY rowid').all()),
  };
}

describe('a long import committed in chunks', () => {
  it('writes exactly what one transaction writes, hidden from another connection until the last chunk', () => {
    const one = tempDb('cs-chunk-one-');
    const chunked = tempDb('cs-chunk-many-');
    try {
      // A generated 1,700-turn transcript, then the whole Claude Code fixture folder (sessions,
      // subagents linked as children, Claude Code's own compaction): a chunk may end only where
      // progress is told (every 1,000 turns), so the second chunk ends 300 turns into the fixtures.
      const generated = path.join(one.dir, 'generated.jsonl');
      writeTranscript(generated, 1_700, 9);
      const paths = [generated, CC];
      const reference = importFiles(one.db, paths, { chunkTurns: Number.POSITIVE_INFINITY, chunkMs: Number.POSITIVE_INFINITY });
      const total = reference.sessions.reduce((n, s) => n + s.turns, 0);
      // 1,700 + the folder's 734 turns (every fixture session and subagent).
      expect(total).toBe(2434);

      const reader = openDatabase(chunked.dbPath, { readonly: true });
      const seen: Array<{ turns: number; committedTurns: number; listed: number; marks: number; found: number }> = [];
      try {
        const report = importFiles(chunked.db, paths, {
          // Chunks counted in turns here (not IMPORT_CHUNK_MS of lock time), so where they end is exact.
          chunkTurns: 1000,
          chunkMs: Number.POSITIVE_INFINITY,
          onProgress: ({ turns }) => {
            // Told at every file's start too (with the last count): once per thousand is enough.
            if (turns === 0 || seen.some((x) => x.turns === turns)) return;
            // Another connection (as the window's): what the committed chunks hold, and what it can see of them.
            seen.push({
              turns,
              committedTurns: count(reader, 'SELECT COUNT(*) FROM turns'),
              listed: listSessions(reader).length,
              marks: count(reader, 'SELECT COUNT(*) FROM session_deletions'),
              found: searchTurns(reader, 'the', 5).length,
            });
          },
        });
        const withoutTime = (r: typeof report) => r.sessions.map((x) => ({ ...x, createdAt: null }));
        expect(withoutTime(report)).toEqual(withoutTime(reference));
      } finally {
        reader.close();
      }
      // At 1,000 turns nothing is committed yet; from 2,000 on, the chunk before is committed, yet nothing is listed or found.
      expect(seen[0]).toEqual({ turns: 1000, committedTurns: 0, listed: 0, marks: 0, found: 0 });
      expect(seen.length).toBe(Math.floor(total / 1000));
      for (const s of seen.slice(1)) {
        expect(s.committedTurns).toBe(s.turns - 1000);
        expect([s.listed, s.found]).toEqual([0, 0]);
        expect(s.marks).toBeGreaterThan(0);
      }
      // Row for row what one transaction wrote (ids included), and every mark gone.
      expect(importedRows(chunked.db)).toEqual(importedRows(one.db));
      expect(count(chunked.db, 'SELECT COUNT(*) FROM session_deletions')).toBe(0);
      chunked.db.exec(`INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check')`);
    } finally {
      one.cleanup();
      chunked.cleanup();
    }
  }, 120_000);

  it('cancelled after two chunks committed: the store is as it was, and the file imports again', () => {
    const t = tempDb('cs-chunk-cancel-');
    try {
      const file = path.join(t.dir, 'long.jsonl');
      writeTranscript(file, 6_000, 3);
      importFiles(t.db, [SMALLEST]);
      const before = dbSnapshot(t.db);
      const reader = openDatabase(t.dbPath, { readonly: true });
      let committedAtCancel = 0;
      try {
        expect(() =>
          importFiles(t.db, [file], {
            chunkTurns: 1000,
            chunkMs: Number.POSITIVE_INFINITY,
            onProgress: ({ turns }) => {
              if (turns < 3000) return;
              committedAtCancel = count(reader, 'SELECT COUNT(*) FROM turns') - (before.turns as unknown[]).length;
              throw new Error('cancelled');
            },
          }),
        ).toThrow('cancelled');
      } finally {
        reader.close();
      }
      // Two chunks of 1,000 turns were committed (and are gone now); the 3rd thousand was in the open chunk.
      expect(committedAtCancel).toBe(2000);
      expect(dbSnapshot(t.db)).toEqual(before);
      expect(importFiles(t.db, [file]).sessions.map((s) => [s.sourceFile, s.turns, s.duplicate])).toEqual([['long.jsonl', 6000, false]]);
    } finally {
      t.cleanup();
    }
  }, 120_000);

  it('killed with SIGKILL between chunks: hidden meanwhile, finished as a delete by the next start', async () => {
    const tmp = tempDir('cs-chunk-kill-');
    try {
      const file = path.join(tmp.dir, 'long.jsonl');
      writeTranscript(file, 6_000, 5);
      const db = openDatabase(tmp.dbPath);
      const kept = importFiles(db, [SMALLEST]).sessions[0];
      const before = dbSnapshot(db);
      db.close();
      // A process that imports in chunks of 1,000 turns and is killed once 3,000 are committed.
      const script = path.join(tmp.dir, 'import-and-die.ts');
      fs.writeFileSync(
        script,
        [
          `import { importFiles } from ${JSON.stringify(path.join(ROOT, 'electron/importers/import.ts'))};`,
          `import { openDatabase } from ${JSON.stringify(path.join(ROOT, 'electron/store/db.ts'))};`,
          `const db = openDatabase(${JSON.stringify(tmp.dbPath)});`,
          `importFiles(db, [${JSON.stringify(file)}], { chunkTurns: 1000, chunkMs: Infinity, onProgress: ({ turns }) => { if (turns === 4000) process.kill(process.pid, 'SIGKILL'); } });`,
        ].join('\n'),
      );
      const child = spawn(process.execPath, ['--import', TSX, script], { stdio: 'ignore' });
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
      expect(signal).toBe('SIGKILL');

      // Looked at without opening the store (which would finish it): chunks 1-3 were committed
      // (the 4th was open when it died), all hidden under the dead process's mark.
      const raw = new Database(tmp.dbPath, { readonly: true });
      try {
        expect(count(raw, 'SELECT COUNT(*) FROM turns')).toBe(kept.turns + 3000);
        expect(count(raw, 'SELECT COUNT(*) FROM session_deletions')).toBe(1);
        expect(listSessions(raw).map((s) => s.id)).toEqual([kept.id]);
      } finally {
        raw.close();
      }
      const service = await createStudioService({ dbPath: tmp.dbPath, resourcesDir: path.join(tmp.dir, 'none'), secrets: memorySecretStore({}), importDemo: false });
      try {
        await service.tasks.whenDeletesDone();
        expect(dbSnapshot(service.db)).toEqual(before);
        expect((await service.api.importPaths({ paths: [file] })).sessions.map((s) => [s.turns, s.duplicate])).toEqual([[6000, false]]);
      } finally {
        await service.close();
      }
    } finally {
      tmp.cleanup();
    }
  }, 120_000);

  it('lets the writes of another process in between its chunks (IMPORT_CHUNK_MS of lock time each), long before it ends', async () => {
    const tmp = tempDir('cs-chunk-two-');
    const db = openDatabase(tmp.dbPath);
    try {
      const file = path.join(tmp.dir, 'long.jsonl');
      // 30,000 turns: seconds of import at this machine's ~10,000 turns/s, so hundreds of chunks of IMPORT_CHUNK_MS.
      writeTranscript(file, 30_000, 13);
      expect(IMPORT_CHUNK_MS).toBeLessThan(100);
      // A second real process imports it with the app's own chunking (no chunk option).
      const script = path.join(tmp.dir, 'import-long.ts');
      fs.writeFileSync(
        script,
        [
          `import { importFiles } from ${JSON.stringify(path.join(ROOT, 'electron/importers/import.ts'))};`,
          `import { openDatabase } from ${JSON.stringify(path.join(ROOT, 'electron/store/db.ts'))};`,
          `const report = importFiles(openDatabase(${JSON.stringify(tmp.dbPath)}), [${JSON.stringify(file)}]);`,
          `process.stdout.write(JSON.stringify(report.sessions.map((s) => s.turns)));`,
        ].join('\n'),
      );
      const child = spawn(process.execPath, ['--import', TSX, script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      let exited = false;
      const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => ((exited = true), resolve(code))));
      const marks = () => count(db, 'SELECT COUNT(*) FROM session_deletions');
      // Its first chunk is committed once its session is marked (hidden until the import's last step).
      while (marks() === 0) {
        expect(exited).toBe(false);
        await new Promise((r) => setTimeout(r, 5));
      }
      // Writes of this process, each needing the write lock the other holds while it writes a
      // chunk: a bare statement (its own IMMEDIATE transaction) and a writeTransaction. Each
      // returns while the import is still under way: its session is still marked, it has not exited.
      const during: Array<{ marks: number; exited: boolean }> = [];
      for (let i = 0; i < 5; i++) {
        writeSetting(db, 'probe-bare', i);
        writeTransaction(db, () => writeSetting(db, 'probe-transaction', i));
        during.push({ marks: marks(), exited });
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(during).toEqual(Array(5).fill({ marks: 1, exited: false }));
      expect(await exit).toBe(0);
      // The import is whole: 30,000 turns, visible, its mark gone; both writes are there.
      expect(JSON.parse(stdout)).toEqual([30_000]);
      expect(count(db, 'SELECT COUNT(*) FROM turns')).toBe(30_000);
      expect(listSessions(db).map((s) => s.turns)).toEqual([30_000]);
      expect(marks()).toBe(0);
      expect([readSetting(db, 'probe-bare'), readSetting(db, 'probe-transaction')]).toEqual([4, 4]);
    } finally {
      db.close();
      tmp.cleanup();
    }
  }, 120_000);
});
