/**
 * Every row of every table, for "the database is exactly as it was" assertions around
 * failing imports. An FTS5 index is compared by what it holds, not by how its segments are
 * laid out: every (term, row, column, offset) through an `fts5vocab` instance table, plus its
 * docsize and config rows. (A long import that fails after committing chunks deletes them
 * again, electron/importers/import.ts: the index then holds exactly what it held, in other
 * segments of its `_data`/`_idx` shadow tables.)
 */
import type { DB } from '../../electron/store/db.js';

export function dbSnapshot(db: DB): Record<string, unknown[]> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  const fts = tables.filter((t) => /CREATE VIRTUAL TABLE[\s\S]*USING fts5\(/i.test((db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(t) as string | null) ?? ''));
  const out: Record<string, unknown[]> = { user_version: [db.pragma('user_version', { simple: true })] };
  for (const t of tables) {
    // Virtual tables are read through their shadow tables (also listed here), FTS5 segments through fts5vocab.
    const sql = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(t) as string | null;
    if (sql && /CREATE VIRTUAL TABLE/i.test(sql)) continue;
    if (fts.some((f) => t === `${f}_data` || t === `${f}_idx`)) continue;
    out[t] = db.prepare(`SELECT * FROM "${t}"`).raw().all();
  }
  for (const f of fts) {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp."${f}_vocab_snapshot" USING fts5vocab(main, '${f}', 'instance')`);
    out[`${f} (index)`] = db.prepare(`SELECT term, doc, col, offset FROM temp."${f}_vocab_snapshot" ORDER BY term, doc, col, offset`).raw().all();
  }
  return out;
}
