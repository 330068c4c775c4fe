/**
 * Every entry point finishes what a killed process left, at open, before anything else
 * (electron/store/db.ts openDatabase's `resume`): a CLI import and a CLI delete killed with
 * SIGKILL half-way, then the CLI's `sessions` next, as real processes.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeTranscript } from '../../bench/import.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { runCliAsync, startCliProcess } from '../helpers/cli-process.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');

let tmp: TempDir;
beforeEach(() => {
  tmp = tempDir('cs-resume-');
});
afterEach(() => tmp.cleanup());

const count = (sql: string): number => {
  const db = new Database(tmp.dbPath, { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
};

/** Starts the CLI, waits until `ready()` holds (polled), then kills it with SIGKILL. */
async function killWhen(args: string[], ready: () => boolean): Promise<void> {
  const p = startCliProcess([...args, '--db', tmp.dbPath, '--json'], { cwd: tmp.dir });
  let exited = false;
  void p.exited.then(() => (exited = true));
  while (!ready()) {
    if (exited) throw new Error(`the process ended before it could be killed: ${p.output.stderr}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  p.child.kill('SIGKILL');
  await p.exited;
  expect(p.child.signalCode).toBe('SIGKILL');
}

const marks = () => {
  try {
    return count('SELECT COUNT(*) FROM session_deletions');
  } catch {
    return 0; // not created yet
  }
};

describe('a killed CLI leaves nothing behind for the next CLI', { timeout: 240_000 }, () => {
  it('a CLI import killed half-way: `sessions` next finishes it (nothing hidden), and the file imports again', async () => {
    const cli = (args: string[]) => runCliAsync([...args, '--db', tmp.dbPath, '--json'], { cwd: tmp.dir });
    expect((await cli(['import', TAU])).code).toBe(0);
    const long = path.join(tmp.dir, 'long.jsonl');
    writeTranscript(long, 30_000, 7);
    // Killed once its first chunk is committed (its session hidden under the mark).
    await killWhen(['import', long], () => marks() > 0);
    expect(marks()).toBe(1);
    expect(count('SELECT COUNT(*) FROM turns')).toBeGreaterThan(46);

    const sessions = await cli(['sessions']);
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(JSON.parse(sessions.stdout).sessions.map((s: { turns: number }) => s.turns)).toEqual([46]);
    expect(marks()).toBe(0);
    expect(count('SELECT COUNT(*) FROM turns')).toBe(46);
    expect(count('SELECT COUNT(*) FROM sessions')).toBe(1);

    const again = await cli(['import', long]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).sessions.map((s: { turns: number; duplicate: boolean }) => [s.turns, s.duplicate])).toEqual([[30_000, false]]);
  });

  it('a CLI delete killed half-way: `sessions` next finishes it, and the session is gone', async () => {
    const cli = (args: string[]) => runCliAsync([...args, '--db', tmp.dbPath, '--json'], { cwd: tmp.dir });
    expect((await cli(['import', TAU])).code).toBe(0);
    const long = path.join(tmp.dir, 'long.jsonl');
    writeTranscript(long, 30_000, 8);
    expect((await cli(['import', long])).code).toBe(0);
    // Killed after its first batches (the session marked, some of its turns gone).
    await killWhen(['delete', '2'], () => marks() > 0 && count('SELECT COUNT(*) FROM turns WHERE session_id = 2') < 30_000);
    expect(marks()).toBe(1);
    expect(count('SELECT COUNT(*) FROM turns WHERE session_id = 2')).toBeGreaterThan(0);

    const sessions = await cli(['sessions']);
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(JSON.parse(sessions.stdout).sessions.map((s: { id: number }) => s.id)).toEqual([1]);
    expect(marks()).toBe(0);
    expect(count('SELECT COUNT(*) FROM turns WHERE session_id = 2')).toBe(0);
    expect(count('SELECT COUNT(*) FROM sessions')).toBe(1);
    // Not "not found" and not hidden: the file can be imported again.
    const again = await cli(['import', long]);
    expect(JSON.parse(again.stdout).sessions.map((s: { duplicate: boolean }) => s.duplicate)).toEqual([false]);
  });
});
