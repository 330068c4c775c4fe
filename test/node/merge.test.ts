/**
 * `merge`: the union of databases that started from the same sessions (electron/store/merge.ts).
 * Real files: a base database with the spotter and tau-bench fixtures imported, copied to two
 * "shards" that each do different work (and one the same work), merged into a copy of the base.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompaction } from '../../electron/engine/engine.js';
import { runReplay } from '../../electron/engine/replay.js';
import { importFiles } from '../../electron/importers/import.js';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { mergeDatabase } from '../../electron/store/merge.js';
import { runCli } from '../../electron/cli/run.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');

let tmp: TempDir;
const file = (name: string) => path.join(tmp.dir, name);
const count = (db: DB, table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
const TABLES = ['sessions', 'turns', 'tool_cycles', 'external_compactions', 'model_calls', 'variants', 'runs', 'run_events', 'summaries', 'summary_sources', 'summary_cache', 'replay_timelines'];

beforeAll(async () => {
  tmp = tempDir('cs-merge-');
  const base = openDatabase(file('base.db'));
  importFiles(base, [SPOTTER, TAU], { discoverSubagents: false });
  // Work already in the base is in every shard: merged once, not once per shard.
  await runCompaction(base, { sessionId: 1, strategy: 'dag', force: true });
  base.close();
  for (const n of ['a', 'b', 'out']) fs.copyFileSync(file('base.db'), file(`${n}.db`));
  const a = openDatabase(file('a.db'));
  await runReplay(a, { sessionId: 1, strategy: 'rolling' });
  await runCompaction(a, { sessionId: 2, strategy: 'window', force: true });
  a.close();
  const b = openDatabase(file('b.db'));
  await runReplay(b, { sessionId: 1, strategy: 'dag' });
  await runCompaction(b, { sessionId: 1, strategy: 'watermark', force: true });
  b.close();
}, 240_000);
afterAll(() => tmp.cleanup());

describe('merge', { timeout: 120_000 }, () => {
  it('unions the shards: shared rows once, each shard\'s work once, ids remapped inside JSON too; merging again adds nothing', () => {
    const dbs = Object.fromEntries(['base', 'a', 'b'].map((n) => [n, openDatabase(file(`${n}.db`), { readonly: true })])) as Record<string, DB>;
    const expected: Record<string, number> = {};
    // Every table: the base's rows plus what each shard added beyond the base.
    for (const t of TABLES) expected[t] = count(dbs.base, t) + (count(dbs.a, t) - count(dbs.base, t)) + (count(dbs.b, t) - count(dbs.base, t));
    const textsA = (dbs.a.prepare('SELECT text FROM summaries WHERE id > (SELECT COALESCE(MAX(id), 0) FROM summaries WHERE replay_run_id IS NULL AND run_id = 1) ORDER BY id').all() as Array<{ text: string }>).map((r) => r.text);
    for (const db of Object.values(dbs)) db.close();

    const out = openDatabase(file('out.db'));
    try {
      const ra = mergeDatabase(out, file('a.db'));
      const rb = mergeDatabase(out, file('b.db'));
      for (const t of TABLES) expect([t, count(out, t)]).toEqual([t, expected[t]]);
      // The sessions were there already: nothing of them was copied.
      expect(ra.tables.sessions).toEqual({ added: 0, existing: 2 });
      expect(rb.tables.turns.added).toBe(0);
      // The FTS index follows the new summaries.
      for (const text of textsA.slice(0, 3)) {
        const word = text.split(/\W+/).find((w) => w.length > 8);
        if (word) expect((out.prepare('SELECT COUNT(*) AS n FROM summaries_fts WHERE summaries_fts MATCH ?').get(`"${word}"`) as { n: number }).n).toBeGreaterThan(0);
      }
      // Every replay timeline names its own (new) run and variant; every firing's summaries exist in its run.
      const timelines = out.prepare('SELECT t.run_id, r.variant_id, t.timeline FROM replay_timelines t JOIN runs r ON r.id = t.run_id').all() as Array<{ run_id: number; variant_id: number; timeline: string }>;
      expect(timelines).toHaveLength(2);
      for (const t of timelines) {
        const parsed = JSON.parse(t.timeline) as { runId: number; variantId: number; events: Array<{ summaryIds: number[] }> };
        expect([parsed.runId, parsed.variantId]).toEqual([t.run_id, t.variant_id]);
        for (const e of parsed.events) for (const id of e.summaryIds) expect(out.prepare('SELECT replay_run_id FROM summaries WHERE id = ?').get(id)).toEqual({ replay_run_id: t.run_id });
      }
      // Edges point inside their own variant.
      const crossed = out.prepare('SELECT COUNT(*) AS n FROM summary_sources ss JOIN summaries p ON p.id = ss.summary_id JOIN summaries c ON c.id = ss.child_summary_id WHERE p.variant_id <> c.variant_id').get() as { n: number };
      expect(crossed.n).toBe(0);
      // Idempotent.
      const again = mergeDatabase(out, file('a.db'));
      expect(Object.values(again.tables).reduce((n, c) => n + c.added, 0)).toBe(0);
      for (const t of TABLES) expect([t, count(out, t)]).toEqual([t, expected[t]]);
    } finally {
      out.close();
    }
  });

  it('copies a session the output does not have, with its turns, and refuses a table it has no rule for', () => {
    const fresh = openDatabase(file('fresh.db'));
    try {
      mergeDatabase(fresh, file('a.db'));
      const src = openDatabase(file('a.db'), { readonly: true });
      for (const t of TABLES.filter((x) => x !== 'summary_cache')) expect([t, count(fresh, t)]).toEqual([t, count(src, t)]);
      const turnText = (db: DB) => (db.prepare('SELECT group_concat(blocks, char(10)) AS b FROM (SELECT blocks FROM turns ORDER BY session_id, position)').get() as { b: string }).b;
      expect(turnText(fresh)).toBe(turnText(src));
      src.close();
    } finally {
      fresh.close();
    }
    const odd = openDatabase(file('odd.db'));
    odd.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    expect(() => mergeDatabase(odd, file('a.db'))).toThrow(/table "notes" has no parent and no merge rule/);
    odd.close();
  });

  it('the CLI merges several files into --db and reports what each added', async () => {
    fs.copyFileSync(file('base.db'), file('cli-out.db'));
    let stdout = '';
    let stderr = '';
    const code = await runCli(['merge', 'a.db', 'b.db', '--db', 'cli-out.db', '--json'], { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env: { HOME: tmp.dir }, cwd: tmp.dir });
    expect(code).toBe(0);
    expect(stderr).toBe(`merging ${file('a.db')}…\nmerging ${file('b.db')}…\n`);
    const out = JSON.parse(stdout) as { sources: Array<{ file: string; tables: Record<string, { added: number }> }> };
    expect(out.sources.map((s) => [s.file, s.tables.sessions.added, s.tables.runs.added > 0])).toEqual([
      [file('a.db'), 0, true],
      [file('b.db'), 0, true],
    ]);
    stderr = '';
    const bad = await runCli(['merge', 'missing.db', '--db', 'cli-out.db'], { stdout: { write: () => true }, stderr: { write: (t: string) => (stderr += t) }, env: { HOME: tmp.dir }, cwd: tmp.dir });
    expect(bad).not.toBe(0);
    expect(stderr).toContain('no such file');
  });
});
