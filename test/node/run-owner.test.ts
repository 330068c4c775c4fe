/**
 * Processes that die and two processes on one database, with real processes:
 * the CLI spawned with node + tsx, killed with SIGKILL, and a second process holding the
 * write lock. Rules: electron/store/run-owner.ts and writeTransaction in electron/store/db.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/store/db.js';
import { claimPassRun, currentOwner, FOREIGN_HOST_STALE_MS, ownerAlive, reapDeadRuns } from '../../electron/store/run-owner.js';
import { startRun } from '../../electron/store/variants.js';
import { pendingDeletions } from '../../electron/store/session-deletion.js';
import { importFiles } from '../../electron/importers/import.js';
import { resolveVariantFor } from '../../electron/engine/engine.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SPOTTER = path.join(ROOT, 'test/fixtures/claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const TAU = path.join(ROOT, 'test/fixtures/openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CLI = path.join(ROOT, 'electron/cli/main.ts');

let tmp: TempDir;
let server: FakeOpenAiServer;
const children: ChildProcess[] = [];

function env(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: tmp.dir, NODE_OPTIONS: '', OPENAI_API_KEY: 'sk-test-run-owner' };
}
function cliSync(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', TSX, CLI, ...args, '--db', tmp.dbPath], { cwd: tmp.dir, encoding: 'utf8', env: env(), timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function runStatus(runId: number): { status: string; error: string | null; owner_pid: number | null } {
  const db = openDatabase(tmp.dbPath);
  try {
    return db.prepare('SELECT status, error, owner_pid FROM runs WHERE id = ?').get(runId) as { status: string; error: string | null; owner_pid: number | null };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  tmp = tempDir('cs-owner-');
  const db = openDatabase(tmp.dbPath);
  importFiles(db, [SPOTTER], { discoverSubagents: false });
  db.close();
  server = await startFakeOpenAiServer();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await server.close();
  tmp.cleanup();
});

describe('run owners across real processes', { timeout: 240_000 }, () => {
  it('a CLI pass killed with SIGKILL is marked interrupted by the next process; while it lives it is untouched and blocks a second pass of the session', async () => {
    // The summarizer never answers: the pass stays in flight until it is killed.
    server.setDefault({ kind: 'hang' });
    const child = spawn(process.execPath, ['--import', TSX, CLI, 'compact', '1', '--strategy', 'dag', '--force', '--summarizer', 'openai', '--base-url', server.baseURL, '--db', tmp.dbPath], { cwd: tmp.dir, env: env(), stdio: 'ignore' });
    children.push(child);
    await server.waitForRequests(1);

    // Opening the database reaps dead owners only: the live CLI run is still running, owned by the child.
    const db = openDatabase(tmp.dbPath);
    const running = db.prepare("SELECT id, owner_pid, owner_host, heartbeat_at FROM runs WHERE status = 'running'").all() as Array<{ id: number; owner_pid: number; owner_host: string; heartbeat_at: string }>;
    db.close();
    expect(running).toHaveLength(1);
    expect(running[0].owner_pid).toBe(child.pid);
    expect(running[0].owner_host).toBe(os.hostname());
    expect(running[0].heartbeat_at).not.toBeNull();
    const runId = running[0].id;

    // One pass per conversation across processes: a second CLI pass of session 1 is refused, naming the owner.
    const second = cliSync(['compact', '1', '--strategy', 'rolling', '--force']);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`has a compaction running in process ${child.pid}`);
    expect(runStatus(runId).status).toBe('running');

    child.kill('SIGKILL');
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));

    // The next process to open the database closes the dead run; nothing else changes.
    const after = runStatus(runId);
    expect(after.status).toBe('failed');
    expect(after.error).toBe(`interrupted: process ${child.pid} on ${os.hostname()} stopped during the run`);

    // And a new pass of the session is no longer blocked.
    const third = cliSync(['compact', '1', '--strategy', 'rolling', '--force', '--json']);
    expect(third.stderr).toBe('');
    expect(third.code).toBe(0);
  });

  it('a write that finds another process holding the lock waits, says so on stderr, and succeeds', async () => {
    // A second real process takes the write lock (BEGIN IMMEDIATE) and holds it until the
    // CLI has said that it waits (then it commits): no timing guess on a busy machine.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
         const db = new D(${JSON.stringify(tmp.dbPath)}); db.pragma('busy_timeout = 10000');
         db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');
         process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    children.push(holder);
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    const cli = spawn(process.execPath, ['--import', TSX, CLI, 'import', TAU, '--db', tmp.dbPath], { cwd: tmp.dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(cli);
    let stdout = '';
    let stderr = '';
    cli.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    cli.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('waiting for another process')) holder.stdin!.end('go\n');
    });
    const code = await new Promise<number | null>((resolve) => cli.once('exit', (c) => resolve(c)));
    expect(stderr).toBe(`compaction-studio: waiting for another process that is writing to ${tmp.dbPath} (up to 120 s)…\n`);
    expect(code).toBe(0);
    expect(stdout).toContain('openai');
  });
});

describe('reapDeadRuns and ownerAlive', () => {
  it('keeps live owners, reaps gone ones: dead pid, reused pid, stale foreign heartbeat, legacy rows', () => {
    const t = tempDir('cs-owner-unit-');
    const db = openDatabase(t.dbPath);
    try {
      importFiles(db, [TAU], { discoverSubagents: false });
      const v = resolveVariantFor(db, { sessionId: 1, strategy: 'window', params: {} });
      const me = currentOwner();
      const now = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      const row = (pid: number | null, host: string | null, start: string | null, beat: string | null) => {
        const id = startRun(db, v.id, {});
        db.prepare('UPDATE runs SET owner_pid = ?, owner_host = ?, owner_start = ?, heartbeat_at = ? WHERE id = ?').run(pid, host, start, beat, id);
        return id;
      };
      // A pid that cannot exist (above Linux's pid_max of 2^22).
      const deadPid = row(4_194_999, me.host, '1', iso(now));
      const reused = row(process.ppid, me.host, '999999999999', iso(now));
      const mine = row(me.pid, me.host, me.start, iso(now));
      const foreignFresh = row(123, 'another-host', '1', iso(now - 1_000));
      const foreignStale = row(123, 'another-host', '1', iso(now - FOREIGN_HOST_STALE_MS - 1_000));
      const legacy = row(null, null, null, null);
      expect(ownerAlive({ owner_pid: me.pid, owner_host: me.host, owner_start: me.start, heartbeat_at: null })).toBe(true);
      const reaped = reapDeadRuns(db, now).map((r) => r.runId).sort((a, b) => a - b);
      expect(reaped).toEqual([deadPid, reused, foreignStale, legacy].sort((a, b) => a - b));
      const status = (id: number) => (db.prepare('SELECT status FROM runs WHERE id = ?').get(id) as { status: string }).status;
      expect([mine, foreignFresh].map(status)).toEqual(['running', 'running']);
      // This process's own running pass does not block it (its runner orders them); a foreign live one does.
      expect(() => claimPassRun(db, 1, () => startRun(db, v.id, {}))).toThrow(/has a compaction running in process 123 on another-host/);
    } finally {
      db.close();
      t.cleanup();
    }
  });

  it('pending deletions are the hiding marks of gone processes only: a live importer between chunks is left alone', () => {
    const t = tempDir('cs-owner-marks-');
    const db = openDatabase(t.dbPath);
    try {
      importFiles(db, [TAU, SPOTTER], { discoverSubagents: false });
      const me = currentOwner();
      const mark = db.prepare('INSERT INTO session_deletions(session_id, owner_pid, owner_host, owner_start) VALUES (?, ?, ?, ?)');
      // Session 1 hidden by a live process (the parent of this test: a CLI between two chunks), session 2 by a dead one.
      mark.run(1, process.ppid, me.host, null);
      mark.run(2, 4_194_999, me.host, '1');
      expect(pendingDeletions(db)).toEqual([2]);
      // A mark from before migration 13 (no owner) is pending, as before.
      db.prepare('UPDATE session_deletions SET owner_pid = NULL, owner_host = NULL WHERE session_id = 1').run();
      expect(pendingDeletions(db)).toEqual([2, 1]);
    } finally {
      db.close();
      t.cleanup();
    }
  });
});
