/**
 * Every row of every table (FTS shadow tables included), for "the database is exactly
 * as it was" assertions around failing imports.
 */
import type { DB } from '../../electron/store/db.js';

export function dbSnapshot(db: DB): Record<string, unknown[]> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  const out: Record<string, unknown[]> = { user_version: [db.pragma('user_version', { simple: true })] };
  for (const t of tables) {
    // Virtual tables are read through their shadow tables (also listed here).
    const sql = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(t) as string | null;
    if (sql && /CREATE VIRTUAL TABLE/i.test(sql)) continue;
    out[t] = db.prepare(`SELECT * FROM "${t}"`).raw().all();
  }
  return out;
}
