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
import { migration005 } from './migrations/005-facts.js';

export type DB = Database.Database;

/** Every migration in order. Append only. */
export const MIGRATIONS = [migration001, migration002, migration003, migration004, migration005] as const;
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export interface OpenOptions {
  /** Path to an alternative native binding (the Electron build of better-sqlite3). */
  nativeBinding?: string;
  /** Migrate only up to this version (migration tests). */
  toVersion?: number;
  readonly?: boolean;
}

export function openDatabase(file: string, opts: OpenOptions = {}): DB {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file, { nativeBinding: opts.nativeBinding, readonly: opts.readonly ?? false });
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  if (!opts.readonly) migrate(db, opts.toVersion ?? LATEST_VERSION);
  return db;
}

export function schemaVersion(db: DB): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies each pending migration in its own transaction and bumps user_version. */
export function migrate(db: DB, toVersion: number = LATEST_VERSION): void {
  const current = schemaVersion(db);
  for (const m of MIGRATIONS) {
    if (m.version <= current || m.version > toVersion) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
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
