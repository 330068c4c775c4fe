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
import { reapDeadRuns } from './run-owner.js';

export type DB = Database.Database;

/** Every migration in order. Append only. */
export const MIGRATIONS = [migration001, migration002, migration003, migration004, migration005, migration006, migration007, migration008, migration009, migration010, migration011, migration012, migration013] as const;
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export interface OpenOptions {
  /** Path to an alternative native binding (the Electron build of better-sqlite3). */
  nativeBinding?: string;
  /** Migrate only up to this version (migration tests). */
  toVersion?: number;
  readonly?: boolean;
  /** Told (once per wait) when a write must wait for another process's write (writeTransaction). */
  onWriteWait?: (message: string) => void;
}

/** How long any statement waits for a lock another connection holds. */
export const BUSY_TIMEOUT_MS = 10_000;
/** How long a write transaction waits, once it has said that it waits. */
export const WRITE_WAIT_MS = 120_000;
/** The first, silent wait: most writes of another process end within it. */
const QUIET_WAIT_MS = 250;
const writeWaitListeners = new WeakMap<DB, (message: string) => void>();

export function openDatabase(file: string, opts: OpenOptions = {}): DB {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file, { nativeBinding: opts.nativeBinding, readonly: opts.readonly ?? false });
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (opts.onWriteWait) writeWaitListeners.set(db, opts.onWriteWait);
  if (!opts.readonly) {
    migrate(db, opts.toVersion ?? LATEST_VERSION);
    // Any process that opens the database closes the runs of processes that are gone.
    if (schemaVersion(db) >= migration005.version) reapDeadRuns(db);
  }
  return db;
}

function isBusy(e: unknown): boolean {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' && (e as { code: string }).code.startsWith('SQLITE_BUSY');
}

/**
 * Every transaction that writes goes through here: it begins IMMEDIATE (it takes the write
 * lock up front, so it never fails half-way with SQLITE_BUSY_SNAPSHOT as a deferred
 * transaction that upgrades to a write does when another process wrote meanwhile). When
 * another process holds the lock for more than a moment, the wait is said (openDatabase's
 * `onWriteWait`: the CLI prints it on stderr, the app tells the window) and lasts up to
 * WRITE_WAIT_MS instead of failing. A nested call is a savepoint of the outer transaction.
 */
export function writeTransaction<T>(db: DB, fn: () => T): T {
  const tx = db.transaction(fn);
  if (db.inTransaction) return tx();
  return withWriteWait(db, () => tx.immediate());
}

/** Runs `begin` (which takes the write lock) under writeTransaction's waiting rule: quiet first, then said and long. */
function withWriteWait<T>(db: DB, begin: () => T): T {
  db.pragma(`busy_timeout = ${QUIET_WAIT_MS}`);
  try {
    return begin();
  } catch (e) {
    if (!isBusy(e)) throw e;
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
  writeWaitListeners.get(db)?.(`waiting for another process that is writing to ${db.name} (up to ${WRITE_WAIT_MS / 1000} s)…`);
  db.pragma(`busy_timeout = ${WRITE_WAIT_MS}`);
  try {
    return begin();
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/** How long a chunked write leaves the lock free between two chunks: a waiting writer's busy handler retries within it. */
export const CHUNK_PAUSE_MS = 25;

/** Sleeps without returning to the event loop (the import's worker has nothing else to do meanwhile). */
function pause(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * A write transaction that `fn` may commit part-way: `commit()` commits what was written so
 * far, leaves the lock free for `pauseMs` (so a writer waiting in another connection gets it)
 * and begins again, IMMEDIATE, under writeTransaction's waiting rule. A throw rolls back only
 * what was written since the last `commit()`: the caller must make earlier chunks invisible
 * until it is done and undo them on failure (the import does both with a hidden mark,
 * electron/importers/import.ts). Never call `commit()` inside a nested writeTransaction.
 * Called inside another transaction (the demo's first start), it cannot commit: `commit` is
 * null and `fn` is one savepoint of the outer transaction.
 */
export function chunkedWriteTransaction<T>(db: DB, fn: (commit: (() => void) | null) => T, pauseMs: number = CHUNK_PAUSE_MS): T {
  if (db.inTransaction) return writeTransaction(db, () => fn(null));
  const begin = () => withWriteWait(db, () => db.exec('BEGIN IMMEDIATE'));
  begin();
  try {
    const result = fn(() => {
      db.exec('COMMIT');
      pause(pauseMs);
      begin();
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
