/**
 * Opening the store safely (electron/store/db.ts, db-errors.ts, the CLI's `doctor`): a file
 * written by a newer version opens read-only and is never written; a damaged file is refused
 * with its path and what to do; a read-only file opens for reads; SQLite's failures of the
 * file carry the contract's codes and the path. Real files, the real CLI as a process.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LATEST_VERSION, openDatabase, readOnlyReason } from '../../electron/store/db.js';
import { databaseErrorOf } from '../../electron/store/db-errors.js';
import { errorEnvelope } from '../../electron/services/dispatch.js';
import { importFiles } from '../../electron/importers/import.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let tmp: TempDir;
beforeEach(() => {
  tmp = tempDir('cs-open-');
});
afterEach(() => tmp.cleanup());

/** A store with the tau-bench fixture, checkpointed into the main file and closed. */
function seededStore(file: string): void {
  const db = openDatabase(file);
  importFiles(db, [TAU]);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const cli = (args: string[], uid?: number) => runCliProcess(args, { cwd: tmp.dir, ...(uid === undefined ? {} : { uid }) });
const jsonError = (stderr: string) => JSON.parse(stderr.trim().split('\n').pop()!).error as { code: string; message: string; file?: string };

describe('opening the store', { timeout: 180_000 }, () => {
  it('opens a file from a newer version read-only: reads work, every write is refused naming the file and both versions, nothing changes', () => {
    seededStore(tmp.dbPath);
    const raw = new Database(tmp.dbPath);
    raw.exec('ALTER TABLE sessions ADD COLUMN written_by_the_future TEXT');
    raw.pragma('user_version = 99');
    raw.close();
    const before = sha(tmp.dbPath);

    const read = cli(['sessions', '--db', tmp.dbPath, '--json']);
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).sessions).toHaveLength(1);
    expect(read.stderr).toContain(`${tmp.dbPath} was written by a newer version`);
    expect(read.stderr).toContain('schema version 99; this app knows up to');

    for (const args of [['import', SPOTTER], ['delete', '1'], ['compact', '1', '--strategy', 'rolling', '--force']]) {
      const write = cli([...args, '--db', tmp.dbPath, '--json']);
      expect(write.code, args.join(' ')).toBe(1);
      const error = jsonError(write.stderr);
      expect(error.code).toBe('database_read_only');
      expect(error.message).toContain(tmp.dbPath);
      expect(error.message).toContain('schema version 99');
      expect(error.message).toContain(`this app knows up to ${LATEST_VERSION}`);
    }
    expect(sha(tmp.dbPath)).toBe(before);
    const after = new Database(tmp.dbPath, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(99);
    expect(after.prepare('SELECT COUNT(*) FROM sessions').pluck().get()).toBe(1);
    after.close();
  });

  it('refuses a damaged file on open with its path and what to do; doctor finds the damage and copies the file', () => {
    seededStore(tmp.dbPath);
    const bytes = fs.readFileSync(tmp.dbPath);
    // The headers of three pages in the middle of the file flipped (their page type and cell
    // counts): flipped bytes inside a record's text would be a different text, not damage any
    // check can see, and where the records fall depends on the schema's layout.
    const page = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
    const pages = bytes.length / page;
    for (const at of [1 / 3, 1 / 2, 2 / 3]) {
      const start = Math.floor(pages * at) * page;
      for (let i = 0; i < 8; i++) bytes[start + i] ^= 0xff;
    }
    fs.writeFileSync(tmp.dbPath, bytes);
    const before = sha(tmp.dbPath);

    for (const args of [['sessions'], ['import', SPOTTER], ['export', '1', '--format', 'openai']]) {
      const r = cli([...args, '--db', tmp.dbPath, '--json']);
      expect(r.code, args.join(' ')).toBe(1);
      const error = jsonError(r.stderr);
      expect(error.code).toBe('database_corrupt');
      expect(error.message).toContain(`${tmp.dbPath} is damaged`);
      expect(error.message).toContain(`compaction-studio doctor --db ${tmp.dbPath} --backup`);
    }
    expect(sha(tmp.dbPath)).toBe(before);

    const copy = path.join(tmp.dir, 'copy.db');
    const doctor = cli(['doctor', '--db', tmp.dbPath, '--backup', copy, '--json']);
    expect(doctor.code).toBe(1);
    const report = JSON.parse(doctor.stdout);
    expect(report.ok).toBe(false);
    expect(report.problems.length).toBeGreaterThan(0);
    expect(report.backup).toEqual({ file: copy, pages: bytes.length / 4096 });
    expect(fs.statSync(copy).size).toBe(bytes.length);
    expect(sha(tmp.dbPath)).toBe(before);
  });

  it('doctor passes a sound file (exit 0, no problems)', () => {
    seededStore(tmp.dbPath);
    const r = cli(['doctor', '--db', tmp.dbPath, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ file: tmp.dbPath, ok: true, problems: [], schemaVersion: LATEST_VERSION, appSchemaVersion: LATEST_VERSION, backup: null });
  });

  // Root may write any file: the read-only case runs as another user (nobody) where the test runs as root.
  const asOther = process.getuid?.() === 0 ? 65534 : undefined;
  it('opens a read-only file for reads; a write is refused naming the file', () => {
    seededStore(tmp.dbPath);
    fs.chmodSync(tmp.dir, 0o777);
    fs.chmodSync(tmp.dbPath, 0o444);
    const before = sha(tmp.dbPath);
    const read = cli(['sessions', '--db', tmp.dbPath, '--json'], asOther);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).sessions.map((s: { turns: number }) => s.turns)).toEqual([46]);
    expect(read.stderr).toContain(`${tmp.dbPath} is read-only for this user`);
    const write = cli(['import', SPOTTER, '--db', tmp.dbPath, '--json'], asOther);
    expect(write.code).toBe(1);
    expect(jsonError(write.stderr)).toMatchObject({ code: 'database_read_only', file: tmp.dbPath });
    expect(sha(tmp.dbPath)).toBe(before);
  });

  it('says that a database in a read-only folder without its -shm file cannot be read there, naming it', () => {
    seededStore(tmp.dbPath);
    fs.chmodSync(tmp.dir, 0o555);
    try {
      const r = cli(['sessions', '--db', tmp.dbPath, '--json'], asOther);
      expect(r.code).toBe(1);
      const error = jsonError(r.stderr);
      expect(error.code).toBe('database_unavailable');
      expect(error.message).toContain(`${tmp.dbPath} cannot be read here: its folder is read-only`);
    } finally {
      fs.chmodSync(tmp.dir, 0o755);
    }
  });

  it('a path that is a folder fails with database_unavailable and the path', () => {
    const folder = path.join(tmp.dir, 'a-folder.db');
    fs.mkdirSync(folder);
    const r = cli(['sessions', '--db', folder, '--json']);
    expect(r.code).toBe(1);
    expect(jsonError(r.stderr)).toMatchObject({ code: 'database_unavailable', file: folder });
    expect(jsonError(r.stderr).message).toContain(`cannot open ${folder}`);
  });
});

describe("SQLite's failures of the file become the contract's codes with the path", () => {
  it('a full disk (SQLITE_FULL) is database_full naming the file', () => {
    const db = openDatabase(tmp.dbPath);
    try {
      db.exec('CREATE TABLE filler(x BLOB)');
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages + 2}`);
      let thrown: unknown = null;
      try {
        db.prepare('INSERT INTO filler VALUES (zeroblob(1000000))').run();
      } catch (e) {
        thrown = e;
      }
      expect((thrown as { code?: string }).code).toBe('SQLITE_FULL');
      const envelope = errorEnvelope('importText', thrown, db);
      expect(envelope).toMatchObject({ ok: false, error: { code: 'database_full' } });
      expect(!envelope.ok && envelope.error.message).toContain(`${tmp.dbPath}: the disk holding the database is full`);
      expect(db.prepare('SELECT COUNT(*) FROM filler').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });

  it('a lock held past the wait (SQLITE_BUSY) is busy naming the file', () => {
    const db = openDatabase(tmp.dbPath);
    const other = new Database(tmp.dbPath);
    try {
      other.exec('BEGIN IMMEDIATE');
      const mine = new Database(tmp.dbPath);
      mine.pragma('busy_timeout = 0');
      let thrown: unknown = null;
      try {
        mine.exec('BEGIN IMMEDIATE');
      } catch (e) {
        thrown = e;
      }
      mine.close();
      const mapped = databaseErrorOf(thrown, tmp.dbPath);
      expect(mapped?.code).toBe('busy');
      expect(mapped?.message).toContain(`${tmp.dbPath} is locked by another process`);
      other.exec('ROLLBACK');
      // A constraint is not a failure of the file: it keeps its own message.
      db.exec('CREATE TABLE u(x UNIQUE)');
      db.exec('INSERT INTO u VALUES (1)');
      let unique: unknown = null;
      try {
        db.prepare('INSERT INTO u VALUES (1)').run();
      } catch (e) {
        unique = e;
      }
      expect(databaseErrorOf(unique, tmp.dbPath)).toBeNull();
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      db.close();
    }
  });

  it('a connection asked for writing that opened read-only says why (readOnlyReason), and one that did not says nothing', () => {
    seededStore(tmp.dbPath);
    const db = openDatabase(tmp.dbPath);
    expect(readOnlyReason(db)).toBeNull();
    expect(db.readonly).toBe(false);
    db.close();
  });
});
