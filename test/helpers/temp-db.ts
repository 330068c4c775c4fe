/**
 * The one way tests get a temporary folder and a database file in it. Each call makes a
 * fresh folder under the OS temp dir; `cleanup()` closes what was opened and deletes it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type DB } from '../../electron/store/db.js';

export interface TempDir {
  /** The folder (absolute). */
  dir: string;
  /** A path inside the folder for a database file (not created): `<dir>/<dbFile>`. */
  dbPath: string;
  /** Deletes the folder and everything in it. */
  cleanup(): void;
}

export interface TempDb extends TempDir {
  /** The database at `dbPath`, opened and migrated to the newest schema. */
  db: DB;
  /** Closes the database, then deletes the folder. */
  cleanup(): void;
}

/** A fresh temp folder and a database path in it, for code that opens the file itself (the service, the server, the CLI). */
export function tempDir(prefix = 'cs-test-', dbFile = 'studio.db'): TempDir {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir,
    dbPath: path.join(dir, dbFile),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh temp folder with an open, migrated database in it. */
export function tempDb(prefix = 'cs-test-', dbFile = 'studio.db'): TempDb {
  const t = tempDir(prefix, dbFile);
  const db = openDatabase(t.dbPath);
  return {
    ...t,
    db,
    cleanup() {
      db.close();
      t.cleanup();
    },
  };
}
