/**
 * What a failure of the SQLite file means to the user: one rule for every entry point (the
 * CLI's runner, the service's dispatch, the browser-mode server through it). SQLite's own
 * texts ("database disk image is malformed", "unable to open database file") name neither
 * the file nor what to do; `databaseErrorOf` turns each into a DatabaseError whose code is
 * one of the contract's ERROR_CODES, whose message names the file and says what to do.
 */
import type { ErrorCode } from '../../shared/contract.js';

/** The contract's codes a database failure maps to. */
export type DatabaseErrorCode = Extract<ErrorCode, 'database_corrupt' | 'database_full' | 'database_unavailable' | 'database_read_only' | 'busy'>;

export class DatabaseError extends Error {
  constructor(
    readonly code: DatabaseErrorCode,
    message: string,
    /** The database file (absolute, as opened). */
    readonly file: string,
  ) {
    super(message);
    this.name = 'DatabaseError';
  }
}

export function isDatabaseError(e: unknown): e is DatabaseError {
  return e instanceof Error && e.name === 'DatabaseError' && typeof (e as { file?: unknown }).file === 'string';
}

/** What to do with a damaged file: said by the quick check on open and by any later read that trips on the damage. */
export function corruptAdvice(file: string): string {
  return `keep a copy of the file, then run 'compaction-studio doctor --db ${file} --backup <copy.db>' to check it in full and save what SQLite can still read (or rebuild it with the sqlite3 shell's '.recover')`;
}

/**
 * The DatabaseError for `e` when it is one of SQLite's failures of the file itself (full,
 * cannot open, damaged, locked, read-only), else null (a constraint, a trigger's message: those
 * are meaningful as they are). `readOnlyReason` is why the connection was opened read-only,
 * if it was (openDatabase's `readOnlyReason`).
 */
export function databaseErrorOf(e: unknown, file: string, readOnlyReason: string | null = null): DatabaseError | null {
  if (isDatabaseError(e)) return e;
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  const sqlite = (e as Error).message;
  if (code.startsWith('SQLITE_FULL')) {
    return new DatabaseError('database_full', `${file}: the disk holding the database is full (SQLite: ${sqlite}); nothing of this change was kept: free some space there and try again`, file);
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new DatabaseError('database_unavailable', `cannot open ${file} (SQLite: ${sqlite}): check that its folder exists and that you may read it (and write it, to change anything)`, file);
  }
  if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) {
    return new DatabaseError('database_corrupt', `${file} is damaged (SQLite: ${sqlite}): ${corruptAdvice(file)}`, file);
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new DatabaseError('busy', `${file} is locked by another process that has been writing to it for too long (SQLite: ${sqlite}): try again once it has finished`, file);
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new DatabaseError('database_read_only', readOnlyReason ?? `${file} cannot be written (SQLite: ${sqlite}): check that you may write the file and its folder`, file);
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new DatabaseError('database_unavailable', `${file} could not be read or written (SQLite: ${sqlite}): check the disk holding it`, file);
  }
  return null;
}
