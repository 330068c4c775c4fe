/**
 * Opening the SQLite store and bringing it to the newest schema.
 * The main process (and the browser-mode server, and the CLI) own the only connection.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migration001 } from './migrations/001-foundation.js';
import { migration002 } from './migrations/002-compaction.js';
import { migration003 } from './migrations/003-model-calls.js';
import { migration004 } from './migrations/004-replay.js';
import { migration005 } from './migrations/005-run-owner.js';
import { migration006 } from './migrations/006-variant-names.js';
import { migration007 } from './migrations/007-prompt-overrides.js';
import { migration008 } from './migrations/008-facts.js';
import { migration009 } from './migrations/009-cache-columns.js';
import { migration010 } from './migrations/010-delete-indexes.js';
import { migration011 } from './migrations/011-sweeps.js';
import { migration012 } from './migrations/012-cache-facts.js';
import { migration013 } from './migrations/013-mark-owner.js';
import { migration014 } from './migrations/014-span-facts-optional.js';
import { migration015 } from './migrations/015-probe-evaluations.js';
import { migration016 } from './migrations/016-cache-row-times.js';
import { reapDeadRuns } from './run-owner.js';
import { finishDeletions, pendingDeletions } from './session-deletion.js';
import { corruptAdvice, DatabaseError, databaseErrorOf } from './db-errors.js';

export type DB = Database.Database;

/** Every migration in order. Append only. */
export const MIGRATIONS = [migration001, migration002, migration003, migration004, migration005, migration006, migration007, migration008, migration009, migration010, migration011, migration012, migration013, migration014, migration015, migration016] as const;
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export interface OpenOptions {
  /** Path to an alternative native binding (the Electron build of better-sqlite3). */
  nativeBinding?: string;
  /** Migrate only up to this version (migration tests). */
  toVersion?: number;
  readonly?: boolean;
  /** Told (once per wait) when a write must wait for another process's write (writeTransaction). */
  onWriteWait?: (message: string) => void;
  /**
   * Run SQLite's `quick_check` on open and refuse a damaged file (default true). The workers
   * pass false: the connection that started them checked the file a moment before.
   */
  check?: boolean;
  /**
   * What an interrupted process left (a killed import's hidden sessions, a killed delete's
   * marked ones: session-deletion.ts `pendingDeletions`): 'now' (the default) finishes the
   * deletes before openDatabase returns, whoever opens the store (the CLI, browser mode, the
   * app); a function is handed their ids to finish them itself (the app, in its worker);
   * 'none' leaves them (the workers: the connection that started them has resumed already).
   */
  resume?: 'now' | 'none' | ((sessionIds: number[]) => void);
}

/** How long any statement waits for a lock another connection holds. */
export const BUSY_TIMEOUT_MS = 10_000;
/** How long a write transaction waits, once it has said that it waits. */
export const WRITE_WAIT_MS = 120_000;
/** The first, silent wait: most writes of another process end within it. */
const QUIET_WAIT_MS = 250;
const writeWaitListeners = new WeakMap<DB, (message: string) => void>();
/** Why a connection was opened read-only when its caller asked to write (readOnlyReason). */
const readOnlyReasons = new WeakMap<DB, string>();

/**
 * Opens the store, safely:
 * - a file this process may not write (or whose folder it may not write: WAL needs its
 *   `-wal` and `-shm` beside it) opens read-only, for reads, instead of failing;
 * - a file whose `user_version` is newer than this app's migrations (written by a newer
 *   version of the app) opens read-only: it is never migrated down and never written;
 * - `PRAGMA quick_check` runs first (a full `integrity_check` is the CLI's `doctor`): a damaged
 *   file is refused with a DatabaseError naming it and what to do;
 * - SQLite's failures of the file (cannot open, damaged, full, locked) are DatabaseErrors
 *   with the contract's codes (db-errors.ts);
 * - a connection that writes migrates the schema and closes the runs of processes that are gone.
 * `readOnlyReason(db)` says why a connection asked for writing was opened read-only; every
 * write through writeTransaction is then refused with it.
 */
export function openDatabase(file: string, opts: OpenOptions = {}): DB {
  const memory = file === ':memory:' || file === '';
  let readonly = opts.readonly ?? false;
  let reason: string | null = null;
  if (!memory && !readonly) {
    reason = unwritableReason(file);
    if (reason !== null) readonly = true;
    else fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  }
  let db = connect(file, readonly, opts.nativeBinding);
  try {
    const version = schemaVersion(db);
    if (version > LATEST_VERSION) {
      reason = `${file} was written by a newer version of Compaction Studio (schema version ${version}; this app knows up to ${LATEST_VERSION}): opened read-only, nothing is written to it; update the app to change it`;
      if (!readonly) {
        db.close();
        readonly = true;
        db = connect(file, true, opts.nativeBinding);
      }
    }
    if (!memory && opts.check !== false) quickCheck(db, file);
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (opts.onWriteWait) writeWaitListeners.set(db, opts.onWriteWait);
    if (reason !== null) readOnlyReasons.set(db, reason);
    if (!readonly) {
      writesOutsideTransactionsWait(db);
      migrate(db, opts.toVersion ?? LATEST_VERSION);
      // Any process that opens the database closes the runs of processes that are gone,
      // and finishes the imports and deletes they left half done, before anything else.
      if (schemaVersion(db) >= migration005.version) reapDeadRuns(db);
      if (opts.resume !== 'none' && schemaVersion(db) >= migration013.version) {
        const pending = pendingDeletions(db);
        if (pending.length > 0) {
          if (typeof opts.resume === 'function') opts.resume(pending);
          else finishDeletions(db, pending);
        }
      }
    } else if (reason !== null && version < LATEST_VERSION) {
      // Asked for writing, found read-only and older than this app: its schema cannot be brought up to date.
      throw new DatabaseError('database_read_only', `${reason}; its schema (version ${version}) is older than this app's (${LATEST_VERSION}) and cannot be brought up to date without writing`, file);
    }
    return db;
  } catch (e) {
    db.close();
    throw databaseErrorOf(e, file) ?? e;
  }
}

/** Why the connection, asked for writing, was opened read-only (a read-only file, a newer schema); null when it was not. */
export function readOnlyReason(db: DB): string | null {
  return readOnlyReasons.get(db) ?? null;
}

function connect(file: string, readonly: boolean, nativeBinding: string | undefined): DB {
  try {
    const db = new Database(file, { nativeBinding, readonly, fileMustExist: readonly });
    try {
      // A read-only connection reads nothing until it first reads: fail here, not at the first query.
      if (readonly) db.pragma('user_version');
    } catch (e) {
      db.close();
      throw e;
    }
    return db;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (readonly && (code === 'SQLITE_READONLY_DIRECTORY' || code === 'SQLITE_CANTOPEN') && fs.existsSync(file) && unwritableReason(file) !== null) {
      // WAL: a reader needs the -shm file beside the database, and this folder cannot hold one.
      throw new DatabaseError('database_unavailable', `${file} cannot be read here: its folder is read-only and SQLite's shared-memory file (${path.basename(file)}-shm) is not beside it; copy the file to a folder you may write and open the copy`, file);
    }
    throw databaseErrorOf(e, file) ?? e;
  }
}

/** Null when this process may write `file` (and its folder); else the sentence saying why it opens read-only. */
function unwritableReason(file: string): string | null {
  const resolved = path.resolve(file);
  if (!fs.existsSync(resolved)) return null;
  try {
    fs.accessSync(resolved, fs.constants.W_OK);
  } catch {
    return `${file} is read-only for this user: opened for reading only, nothing is written to it`;
  }
  try {
    fs.accessSync(path.dirname(resolved), fs.constants.W_OK);
  } catch {
    // WAL keeps its -wal and -shm files beside the database: without them nothing is written.
    return `the folder of ${file} is read-only for this user (SQLite keeps its write-ahead log beside the file): opened for reading only, nothing is written to it`;
  }
  return null;
}

/**
 * `PRAGMA quick_check`: the file's pages and records are well formed (not the indexes' contents:
 * `doctor` checks those). Linear in the file: 260 ms for a 79 MB store of 100,000 turns on this
 * 2-core machine (about 3 ms per MB), paid once per open of the main connection.
 */
function quickCheck(db: DB, file: string): void {
  let problems: string[];
  try {
    const rows = db.pragma('quick_check(5)', { simple: false }) as Array<{ quick_check: string }>;
    problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
  } catch (e) {
    // A page too damaged to read stops the check itself.
    if (databaseErrorOf(e, file)?.code !== 'database_corrupt') throw e;
    problems = [(e as Error).message];
  }
  if (problems.length === 0) return;
  throw new DatabaseError('database_corrupt', `${file} is damaged (SQLite's quick check: ${problems.slice(0, 3).join('; ')}) and was not opened: ${corruptAdvice(file)}`, file);
}

/** A write on a connection opened read-only fails before it begins, saying why (readOnlyReason). */
function refuseReadOnly(db: DB): void {
  if (!db.readonly) return;
  throw new DatabaseError('database_read_only', readOnlyReasons.get(db) ?? `${db.name} was opened read-only: nothing is written to it`, db.name);
}

function isBusy(e: unknown): boolean {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' && (e as { code: string }).code.startsWith('SQLITE_BUSY');
}

/**
 * Every transaction that writes goes through here: it begins IMMEDIATE (it takes the write
 * lock up front, so it never fails half-way with SQLITE_BUSY_SNAPSHOT as a deferred
 * transaction that upgrades to a write does when another process wrote meanwhile), waiting
 * for the lock under `beginImmediate`'s rule: retried every millisecond, so it gets in
 * within a moment of another connection's commit; when another process holds the lock for
 * more than a moment, the wait is said (openDatabase's `onWriteWait`: the CLI prints it on
 * stderr, the app tells the window) and lasts up to WRITE_WAIT_MS instead of failing. A
 * nested call is a savepoint of the outer transaction.
 */
export function writeTransaction<T>(db: DB, fn: () => T): T {
  refuseReadOnly(db);
  if (db.inTransaction) return db.transaction(fn)();
  beginImmediate(db);
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw e;
  }
}

/**
 * A statement that writes, run outside any transaction (a bare `UPDATE variants SET name`),
 * is its own writeTransaction: it waits for the lock by `beginImmediate`'s rule (retried every
 * millisecond, said after a moment) instead of SQLite's busy handler, whose sleeps grow to
 * 100 ms and so miss the few milliseconds between two chunks of another connection's import.
 * Statements that only read, PRAGMAs and statements inside a transaction run as they are.
 */
function writesOutsideTransactionsWait(db: DB): void {
  const prepare = db.prepare.bind(db) as (...args: unknown[]) => Database.Statement;
  (db as { prepare: (...args: unknown[]) => Database.Statement }).prepare = (...args: unknown[]) => {
    const stmt = prepare(...args);
    if (stmt.readonly || /^\s*PRAGMA\b/i.test(stmt.source)) return stmt;
    for (const method of ['run', 'get', 'all'] as const) {
      const call = stmt[method] as (...a: unknown[]) => unknown;
      (stmt as unknown as Record<string, unknown>)[method] = function (this: unknown, ...a: unknown[]) {
        return db.inTransaction ? call.apply(stmt, a) : writeTransaction(db, () => call.apply(stmt, a));
      };
    }
    return stmt;
  };
}

/** How often a writer that waits for the lock tries again. */
export const WRITE_RETRY_MS = 1;

/**
 * BEGIN IMMEDIATE, waiting for the write lock another connection holds: tried again every
 * WRITE_RETRY_MS instead of through SQLite's busy handler, whose sleeps grow to 100 ms and so
 * oversleep the moment another writer leaves the lock free (a chunked import's pause between
 * two chunks, a delete's between two batches). Quiet for QUIET_WAIT_MS, then said and up to
 * WRITE_WAIT_MS; then it fails with SQLite's own SQLITE_BUSY.
 */
function beginImmediate(db: DB): void {
  const started = performance.now();
  let said = false;
  let counted = false;
  db.pragma('busy_timeout = 0');
  try {
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE');
        return;
      } catch (e) {
        if (!isBusy(e)) throw e;
        if (!counted) {
          counted = true;
          Atomics.add(waitingWriters(), 0, 1);
        }
        const waited = performance.now() - started;
        if (waited >= WRITE_WAIT_MS) throw e;
        if (!said && waited >= QUIET_WAIT_MS) {
          said = true;
          writeWaitListeners.get(db)?.(`waiting for another process that is writing to ${db.name} (up to ${WRITE_WAIT_MS / 1000} s)…`);
        }
      }
      pause(WRITE_RETRY_MS);
    }
  } finally {
    if (counted) {
      Atomics.sub(waitingWriters(), 0, 1);
      Atomics.notify(waitingWriters(), 0);
    }
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/**
 * How many writers of this process (its threads: the window's main thread, the worker of an
 * import or a delete) wait for the write lock right now: shared memory, so a chunked writer
 * that leaves the lock free between two chunks (`yieldWriteLock`) can keep it free until
 * they have it, however late the system wakes them. Another process's writers are not
 * counted: for them the lock is free CHUNK_PAUSE_MS every OTHER_PROCESS_PAUSE_EVERY chunks, a few of their tries.
 */
let waiting: Int32Array | null = null;
function waitingWriters(): Int32Array {
  return (waiting ??= new Int32Array(new SharedArrayBuffer(4)));
}

/** The shared count of waiting writers, to hand to a worker thread (`useWriteWaitSignal`). */
export function writeWaitSignal(): SharedArrayBuffer {
  return waitingWriters().buffer as SharedArrayBuffer;
}

/** In a worker thread: count this thread's waiting writers with the parent's (writeWaitSignal). */
export function useWriteWaitSignal(signal: SharedArrayBuffer): void {
  waiting = new Int32Array(signal);
}

/** At most this long a chunked writer keeps the lock free for waiting writers of its process. */
export const MAX_YIELD_MS = 200;

/**
 * Between two chunks (an import) or two batches (a delete), outside any transaction: leaves
 * the lock free for `pauseMs`, and on until no writer of this process waits for it any more
 * (they have it: the next BEGIN waits for their commit), at most MAX_YIELD_MS.
 */
export function yieldWriteLock(pauseMs: number = CHUNK_PAUSE_MS): void {
  pause(pauseMs);
  const w = waitingWriters();
  const until = performance.now() + MAX_YIELD_MS;
  for (let n = Atomics.load(w, 0); n > 0; n = Atomics.load(w, 0)) {
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(w, 0, n, left);
  }
}

/**
 * How long a chunked write leaves the lock free between two chunks, and a delete between two
 * batches: a few of a waiting writer's WRITE_RETRY_MS tries (beginImmediate) fall within it.
 */
export const CHUNK_PAUSE_MS = 2;

/** A chunked write pauses for writers of other processes after this many chunks (~100 ms of an import). */
export const OTHER_PROCESS_PAUSE_EVERY = 4;

/** Sleeps without returning to the event loop (the import's worker has nothing else to do meanwhile). */
function pause(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * A write transaction that `fn` may commit part-way: `commit()` commits what was written so
 * far, leaves the lock free for `pauseMs` and for as long as a writer of this process waits
 * (`yieldWriteLock`: so a writer waiting in another connection gets it)
 * and begins again, IMMEDIATE, under writeTransaction's waiting rule. A throw rolls back only
 * what was written since the last `commit()`: the caller must make earlier chunks invisible
 * until it is done and undo them on failure (the import does both with a hidden mark,
 * electron/importers/import.ts). Never call `commit()` inside a nested writeTransaction.
 * Called inside another transaction (the demo's first start), it cannot commit: `commit` is
 * null and `fn` is one savepoint of the outer transaction.
 */
export function chunkedWriteTransaction<T>(db: DB, fn: (commit: (() => void) | null) => T, pauseMs: number = CHUNK_PAUSE_MS): T {
  refuseReadOnly(db);
  if (db.inTransaction) return writeTransaction(db, () => fn(null));
  beginImmediate(db);
  let chunks = 0;
  try {
    const result = fn(() => {
      db.exec('COMMIT');
      // A writer of this process that waits is let in at once (the shared count says so); one
      // of another process (a CLI beside the app), which only retries, gets a pause every
      // OTHER_PROCESS_PAUSE_EVERY chunks: pausing after every chunk cost the import ~8%.
      if (++chunks % OTHER_PROCESS_PAUSE_EVERY === 0 || Atomics.load(waitingWriters(), 0) > 0) yieldWriteLock(pauseMs);
      beginImmediate(db);
    });
    db.exec('COMMIT');
    return result;
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw e;
  }
}

export function schemaVersion(db: DB): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies each pending migration in its own transaction and bumps user_version. */
export function migrate(db: DB, toVersion: number = LATEST_VERSION): void {
  const current = schemaVersion(db);
  for (const m of MIGRATIONS) {
    if (m.version <= current || m.version > toVersion) continue;
    writeTransaction(db, () => {
      // Another process may have migrated while this one waited for the lock.
      if (schemaVersion(db) >= m.version) return;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    });
  }
}

/**
 * The CLI's default database: $COMPACTION_STUDIO_DB, else
 * $XDG_DATA_HOME/compaction-studio/studio.db, else ~/.local/share/compaction-studio/studio.db.
 */
export function defaultCliDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.COMPACTION_STUDIO_DB) return env.COMPACTION_STUDIO_DB;
  const base = env.XDG_DATA_HOME && env.XDG_DATA_HOME.length > 0 ? env.XDG_DATA_HOME : path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'compaction-studio', 'studio.db');
}
