/**
 * Races between processes become the contract's `busy` with a sentence, never a raw SQL
 * error: two real CLI processes compacting the same new variant at once, a delete while
 * another process compacts the session, a second compaction of a session that has one running.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { runCliAsync, startCliProcess, type CliRun } from '../helpers/cli-process.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let tmp: TempDir;
let server: FakeOpenAiServer;
beforeAll(async () => {
  tmp = tempDir('cs-races-');
  server = await startFakeOpenAiServer();
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

const jsonError = (r: CliRun) => JSON.parse(r.stderr.trim().split('\n').pop()!).error as { code: string; message: string };
const query = <T>(file: string, sql: string, ...args: unknown[]): T => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).pluck().get(...args) as T;
  } finally {
    db.close();
  }
};

describe('races between processes', { timeout: 300_000 }, () => {
  it('two processes compacting the same new variant at once: one variant, each either completes or is told busy', async () => {
    const db = path.join(tmp.dir, 'variants.db');
    expect((await runCliAsync(['import', TAU, '--db', db, '--json'], { cwd: tmp.dir })).code).toBe(0);
    for (let round = 0; round < 4; round++) {
      const args = ['compact', '1', '--strategy', 'rolling', '--force', '--set', `compactionCount=${10 + round}`, '--db', db, '--json'];
      const both = await Promise.all([runCliAsync(args, { cwd: tmp.dir }), runCliAsync(args, { cwd: tmp.dir })]);
      for (const r of both) {
        if (r.code === 0) continue;
        expect(r.code, r.stderr).toBe(1);
        const error = jsonError(r);
        expect(error.code, error.message).toBe('busy');
        expect(error.message).toContain('has a compaction running');
      }
      expect(both.some((r) => r.code === 0)).toBe(true);
      expect(query<number>(db, "SELECT COUNT(*) FROM variants WHERE strategy = 'rolling' AND json_extract(params, '$.compactionCount') = ?", 10 + round)).toBe(1);
    }
  });

  it('a delete while another process compacts the session is refused as busy, so is a second compaction; the pass then completes', async () => {
    const db = path.join(tmp.dir, 'delete.db');
    expect((await runCliAsync(['import', SPOTTER, '--db', db, '--json'], { cwd: tmp.dir })).code).toBe(0);
    const turns = query<number>(db, 'SELECT COUNT(*) FROM turns');
    server.setDefault({ kind: 'delay', ms: 300 });
    const compact = ['compact', '1', '--strategy', 'dag', '--set', 'tokenBudget=40000', '--set', 'leafChunkTokens=8000', '--force', '--summarizer', 'openai', '--base-url', server.baseURL, '--model', 'fake-model', '--db', db, '--json'];
    const pass = startCliProcess(compact, { cwd: tmp.dir });
    try {
      await server.waitForRequests(1);
      expect(query<number>(db, "SELECT COUNT(*) FROM runs WHERE status = 'running'")).toBe(1);

      const del = await runCliAsync(['delete', '1', '--db', db, '--json'], { cwd: tmp.dir });
      expect(del.code).toBe(1);
      expect(jsonError(del).code).toBe('busy');
      expect(jsonError(del).message).toMatch(/^session 1 has a compaction running in process \d+ on .+ \(run 1\); cancel it or wait for it to finish before deleting session 1$/);

      const second = await runCliAsync(compact, { cwd: tmp.dir });
      expect(second.code).toBe(1);
      expect(jsonError(second).code).toBe('busy');
      expect(jsonError(second).message).toContain('session 1 has a compaction running in process');
    } finally {
      expect(await pass.exited).toBe(0);
      server.setDefault({ kind: 'summary' });
    }
    expect(query<string>(db, 'SELECT status FROM runs WHERE id = 1')).toBe('completed');
    expect(query<number>(db, 'SELECT COUNT(*) FROM turns')).toBe(turns);
    expect(query<number>(db, 'SELECT COUNT(*) FROM session_deletions')).toBe(0);
    // Once it has finished, the delete goes through.
    const del = await runCliAsync(['delete', '1', '--db', db, '--json'], { cwd: tmp.dir });
    expect(del.code, del.stderr).toBe(0);
    expect(query<number>(db, 'SELECT COUNT(*) FROM sessions')).toBe(0);
  });
});
