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
import { runCompaction } from '../../electron/engine/engine.js';
import { dbSnapshot } from '../helpers/db-snapshot.js';
import { tempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

function tables(db: DB): string[] {
  return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
}

/**
 * A database at `version` holding a real import. The importer writes the newest schema
 * (since migration 3 it also fills model_calls), so the import goes to a newest-version
 * file and the rows of every plain table that exists at `version` are copied over, in
 * creation order (parents before children); FTS indexes fill through their triggers.
 */
function importedAtVersion(version: number, files: string[]): DB {
  const tmp = tempDir('cs-migrate-src-', 'src.db');
  try {
    const file = tmp.dbPath;
    const src = openDatabase(file);
    importFiles(src, files);
    src.close();
    const db = openDatabase(':memory:', { toVersion: version });
    db.prepare('ATTACH DATABASE ? AS src').run(file);
    for (const m of MIGRATIONS.filter((x) => x.version <= version)) {
      for (const [, t] of m.sql.matchAll(/CREATE TABLE (\w+)/g)) {
        // The older schema's columns only: later migrations add columns (004 adds runs.kind).
        const cols = (db.prepare(`PRAGMA main.table_info(${t})`).all() as Array<{ name: string }>).map((c) => c.name).join(', ');
        db.exec(`INSERT INTO main.${t} (${cols}) SELECT ${cols} FROM src.${t}`);
      }
    }
    db.exec('DETACH DATABASE src');
    return db;
  } finally {
    tmp.cleanup();
  }
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
      const db = importedAtVersion(m.version - 1, [SPOTTER]);
      expect(db.prepare('SELECT COUNT(*) FROM turns').pluck().get()).toBeGreaterThan(300);
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
    const db = importedAtVersion(2, [SPOTTER]);
    const sessionId = db.prepare('SELECT id FROM sessions WHERE parent_session_id IS NULL').pluck().get() as number;
    const variant = db
      .prepare("INSERT INTO variants (session_id, strategy, params, summarizer, prompt_version, variant_key, created_at) VALUES (?, 'window', '{}', '{}', 'v1', 'k', 'now')")
      .run(sessionId).lastInsertRowid;
    db.prepare("INSERT INTO settings (key, value) VALUES ('demoImported', '{}')").run();
    expect(db.prepare('SELECT session_id FROM variants WHERE id = ?').pluck().get(variant)).toBe(sessionId);
    expect(() => db.prepare("INSERT INTO variants (session_id, strategy, params, summarizer, prompt_version, variant_key, created_at) VALUES (999, 'window', '{}', '{}', 'v1', 'k2', 'now')").run()).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('migration 3 adds model calls to a version-2 database without touching its turns, and they are immutable', () => {
    const db = importedAtVersion(2, [SPOTTER]);
    const turnsBefore = db.prepare('SELECT * FROM turns ORDER BY id').raw().all();
    migrate(db, 3);
    expect(db.prepare('SELECT * FROM turns ORDER BY id').raw().all()).toEqual(turnsBefore);
    // Sessions imported before the migration have no calls until imported again.
    expect(db.prepare('SELECT COUNT(*) FROM model_calls').pluck().get()).toBe(0);
    const sessionId = db.prepare('SELECT id FROM sessions WHERE parent_session_id IS NULL').pluck().get() as number;
    const turnId = db.prepare("SELECT id FROM turns WHERE session_id = ? AND role = 'assistant' ORDER BY position LIMIT 1").pluck().get(sessionId) as number;
    db.prepare('INSERT INTO model_calls (session_id, turn_id, position, input_tokens, placeholder) VALUES (?, ?, 1, 3, 0)').run(sessionId, turnId);
    expect(() => db.prepare('INSERT INTO model_calls (session_id, turn_id, position) VALUES (?, ?, 1)').run(sessionId, turnId)).toThrow(/UNIQUE/);
    expect(() => db.prepare("INSERT INTO model_calls (session_id, turn_id, position, input_tokens) VALUES (?, ?, 2, '3 tokens')").run(sessionId, turnId)).toThrow(/INTEGER/);
    expect(() => db.prepare('INSERT INTO model_calls (session_id, turn_id, position) VALUES (999, ?, 3)').run(turnId)).toThrow(/FOREIGN KEY/);
    expect(() => db.prepare('UPDATE model_calls SET input_tokens = 4').run()).toThrow('model calls are immutable: imported usage is never changed');
    expect(() => db.prepare('DELETE FROM model_calls').run()).toThrow('model calls are immutable: delete the whole session instead');
    db.close();
  });

  it('migration 6 adds variant names and removes only empty variants (no run, no summary): runs, summaries and turns stay', () => {
    const db = importedAtVersion(5, [SPOTTER]);
    const sessionId = db.prepare('SELECT id FROM sessions WHERE parent_session_id IS NULL').pluck().get() as number;
    const variant = (key: string) => Number(db.prepare("INSERT INTO variants (session_id, strategy, params, summarizer, prompt_version, variant_key, created_at) VALUES (?, 'dag', '{}', '{}', 'v1', ?, 'now')").run(sessionId, key).lastInsertRowid);
    // What slider moves left behind: two empty variants; one with a failed run; one with a summary; one with a replay run and its summary.
    const empty1 = variant('e1');
    const withRun = variant('r');
    const empty2 = variant('e2');
    const withSummary = variant('s');
    const withReplay = variant('rp');
    db.prepare("INSERT INTO runs (variant_id, started_at, status, params) VALUES (?, 'now', 'failed', '{}')").run(withRun);
    const summary = (variantId: number, replayRunId: number | null) =>
      db.prepare("INSERT INTO summaries (variant_id, kind, depth, text, token_count, tier, model, prompt_version, first_position, last_position, created_at, replay_run_id) VALUES (?, 'leaf', 0, 'kept text', 2, 'normal', 'm', 'v1', 0, 3, 'now', ?)").run(variantId, replayRunId);
    summary(withSummary, null);
    const replayRun = Number(db.prepare("INSERT INTO runs (variant_id, started_at, status, params, kind) VALUES (?, 'now', 'completed', '{}', 'replay')").run(withReplay).lastInsertRowid);
    summary(withReplay, replayRun);
    const before = dbSnapshot(db);
    migrate(db, 6);
    const after = dbSnapshot(db);
    expect(db.prepare('SELECT id FROM variants ORDER BY id').pluck().all()).toEqual([withRun, withSummary, withReplay]);
    expect(db.prepare('SELECT COUNT(*) FROM variants WHERE name IS NOT NULL').pluck().get()).toBe(0);
    for (const t of ['turns', 'runs', 'summaries', 'summary_sources', 'model_calls', 'sessions']) expect(after[t], t).toEqual(before[t]);
    expect([empty1, empty2].every((id) => !db.prepare('SELECT 1 FROM variants WHERE id = ?').get(id))).toBe(true);
    db.close();
  });

  it('migration 14 keeps every summary_facts row and then takes a row whose span facts were not kept (NULL)', async () => {
    const db = importedAtVersion(13, [SPOTTER]);
    const sessionId = db.prepare('SELECT id FROM sessions ORDER BY id LIMIT 1').pluck().get() as number;
    // Today's pass writes the cache row of migration 16 (its columns only; the table is empty).
    db.exec("ALTER TABLE summary_cache ADD COLUMN span_token_count_in INTEGER; ALTER TABLE summary_cache ADD COLUMN last_read_at_ms INTEGER;");
    const r = await runCompaction(db, { sessionId, strategy: 'dag', force: true });
    expect(r.status).toBe('completed');
    const rows = () => db.prepare('SELECT summary_id, span_facts, own_facts, ledger FROM summary_facts ORDER BY summary_id').all() as Array<{ summary_id: number; span_facts: string | null }>;
    const before = rows();
    expect(before.length).toBeGreaterThan(1);
    expect(() => db.prepare('UPDATE summary_facts SET span_facts = NULL WHERE summary_id = ?').run(before[0].summary_id)).toThrow(/NOT NULL/);
    migrate(db, 14);
    expect(rows()).toEqual(before);
    db.prepare('UPDATE summary_facts SET span_facts = NULL WHERE summary_id = ?').run(before[0].summary_id);
    expect(rows()[0].span_facts).toBeNull();
    db.close();
  });

  it('migration 16 keeps every summary cache row: use_count counts the write, last_read_at_ms is a time, span_token_count_in unknown', () => {
    const db = openDatabase(':memory:', { toVersion: 15 });
    const put = db.prepare('INSERT INTO summary_cache(cache_key, text, token_count, tier, model, created_at, last_used, prompt_version, span_count, use_count, facts) VALUES (?,?,?,?,?,?,?,?,?,?,?)');
    put.run('k-never-hit', 'first text', 3, 'normal', 'gpt-4o-mini', '2026-11-01T10:00:00.000Z', 1, 'p1', 4, 0, null);
    put.run('k-hit-twice', 'second text', 5, 'fallback', 'extractive', '2026-11-02T12:30:00.500Z', 2, null, null, 2, '{"facts":[]}');
    const kept = 'SELECT cache_key, text, token_count, tier, model, created_at, last_used, prompt_version, span_count, facts FROM summary_cache ORDER BY cache_key';
    const before = db.prepare(kept).all();
    migrate(db, 16);
    expect(db.prepare(kept).all()).toEqual(before);
    expect(db.prepare('SELECT cache_key, use_count, last_read_at_ms, span_token_count_in FROM summary_cache ORDER BY cache_key').all()).toEqual([
      { cache_key: 'k-hit-twice', use_count: 3, last_read_at_ms: Date.parse('2026-11-02T12:30:00.500Z'), span_token_count_in: null },
      { cache_key: 'k-never-hit', use_count: 1, last_read_at_ms: Date.parse('2026-11-01T10:00:00.000Z'), span_token_count_in: null },
    ]);
    expect(() => db.prepare("UPDATE summary_cache SET last_read_at_ms = 'yesterday'").run()).toThrow(/INTEGER/);
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
    // 5 tables in migration 1, 7 in migration 2, 1 in migration 3 (virtual FTS tables excluded).
    expect(checked).toBeGreaterThanOrEqual(13);
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
