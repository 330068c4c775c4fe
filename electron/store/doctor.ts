/**
 * The on-demand checks of the store file (the CLI's `doctor`): SQLite's full
 * `integrity_check` (openDatabase runs only the bounded `quick_check`) and a copy through
 * SQLite's online backup API, which reads page by page and so saves what can be read of a
 * damaged file before anyone tries to repair it.
 */
import fs from 'node:fs';
import { schemaVersion, type DB } from './db.js';

export interface IntegrityReport {
  /** SQLite's findings, at most `max`; empty when the file is sound. */
  problems: string[];
  schemaVersion: number | null;
}

/** `PRAGMA integrity_check(max)`: every page, record and index entry; a page too damaged to read is itself a finding. */
export function checkIntegrity(db: DB, max = 100): IntegrityReport {
  let version: number | null = null;
  try {
    version = schemaVersion(db);
  } catch {
    // The header itself is unreadable: the check below says why.
  }
  try {
    const rows = db.pragma(`integrity_check(${Math.max(1, Math.floor(max))})`) as Array<{ integrity_check: string }>;
    return { problems: rows.map((r) => r.integrity_check).filter((r) => r !== 'ok'), schemaVersion: version };
  } catch (e) {
    return { problems: [(e as Error).message], schemaVersion: version };
  }
}

/** Copies the database to `dest` (which must not exist) through SQLite's backup API; returns the pages copied. */
export async function backupDatabase(db: DB, dest: string): Promise<number> {
  if (fs.existsSync(dest)) throw new Error(`${dest} exists already: name a new file for the backup`);
  const result = await db.backup(dest);
  return result.totalPages;
}
