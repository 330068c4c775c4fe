/**
 * Each migration on an in-memory database: migrate to N-1, write rows (a real import),
 * migrate to N, and compare: every row written before is still there unchanged, the
 * tables N adds exist (empty) and accept rows. Also: STRICT tables, idempotent reopen.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LATEST_VERSION, MIGRATIONS, migrate, openDatabase, schemaVersion, type DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { dbSnapshot } from '../helpers/db-snapshot.js';
import { tempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.resolve(ROOT, '../shared/fixtures');
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

function tables(db: DB): string[] {
  return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
}

/** Tables a migration creates, from its CREATE TABLE / CREATE VIRTUAL TABLE statements. */
function declaredTables(sql: string): string[] {
  return [...sql.matchAll(/CREATE (?:VIRTUAL )?TABLE (\w+)/g)].map((m) => m[1]);
}

describe('migrations', () => {
  it('migration 1 creates the foundation tables on an empty database', () => {
    const db = openDatabase(':memory:', { toVersion: 1 });
    expect(schemaVersion(db)).toBe(1);
    for (const t of ['sessions', 'turns', 'tool_cycles', 'external_compactions', 'session_deletions', 'turns_fts']) expect(tables(db)).toContain(t);
    expect(tables(db)).not.toContain('variants');
    db.close();
  });

  for (const m of MIGRATIONS.filter((x) => x.version > 1)) {
    it(`migration ${m.version} (${m.name}) keeps every row written at version ${m.version - 1}`, () => {
      const db = openDatabase(':memory:', { toVersion: m.version - 1 });
      // The importer writes only version-1 tables, so it can fill any older schema.
      importFiles(db, [SPOTTER]);
      const before = dbSnapshot(db);
      const tablesBefore = tables(db);
      migrate(db, m.version);
      expect(schemaVersion(db)).toBe(m.version);
      const after = dbSnapshot(db);
      for (const t of tablesBefore) expect(after[t], t).toEqual(before[t]);
      const added = declaredTables(m.sql);
      for (const t of added) {
        expect(tables(db)).toContain(t);
        expect(after[t] ?? [], t).toEqual([]);
      }
      db.close();
    });
  }

  it('migration 2 tables accept rows that reference imported sessions', () => {
    const db = openDatabase(':memory:', { toVersion: 2 });
    const sessionId = importFiles(db, [SPOTTER]).sessions[0].id;
    const variant = db
      .prepare("INSERT INTO variants (session_id, strategy, params, summarizer, prompt_version, variant_key, created_at) VALUES (?, 'window', '{}', '{}', 'v1', 'k', 'now')")
      .run(sessionId).lastInsertRowid;
    db.prepare("INSERT INTO settings (key, value) VALUES ('demoImported', '{}')").run();
    expect(db.prepare('SELECT session_id FROM variants WHERE id = ?').pluck().get(variant)).toBe(sessionId);
    expect(() => db.prepare("INSERT INTO variants (session_id, strategy, params, summarizer, prompt_version, variant_key, created_at) VALUES (999, 'window', '{}', '{}', 'v1', 'k2', 'now')").run()).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('declares every table STRICT', () => {
    let checked = 0;
    for (const m of MIGRATIONS) {
      for (const stmt of m.sql.split(/;\s*\n/)) {
        if (!/^\s*(--[^\n]*\n\s*)*CREATE TABLE/.test(stmt)) continue;
        expect(stmt.trim().endsWith('STRICT'), stmt.slice(0, 60)).toBe(true);
        checked++;
      }
    }
    // 5 tables in migration 1, 7 in migration 2 (virtual FTS tables excluded).
    expect(checked).toBeGreaterThanOrEqual(12);
  });

  it('reopening a migrated database file changes nothing', () => {
    const tmp = tempDir('cs-migrate-');
    try {
      const file = tmp.dbPath;
      const db = openDatabase(file);
      importFiles(db, [SPOTTER]);
      const snapshot = dbSnapshot(db);
      db.close();
      const again = openDatabase(file);
      expect(schemaVersion(again)).toBe(LATEST_VERSION);
      expect(dbSnapshot(again)).toEqual(snapshot);
      again.close();
    } finally {
      tmp.cleanup();
    }
  });
});
