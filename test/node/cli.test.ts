/**
 * The CLI against temp databases: --json shapes, exit codes, stderr messages, and that
 * --json puts nothing but JSON on stdout. Behaviour runs in-process through the real runner
 * (`runCli(argv, io)` in electron/cli/run.ts, which electron/cli/main.ts only wraps); a few
 * tests spawn the real program (node + tsx on main.ts, and bin/compaction-studio.cjs) to
 * check what only a process shows: its stdout, stderr and exit status.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/run.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');
// The tsx loader by absolute URL: the CLI runs with a temp dir as its working directory.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let tmp: TempDir;
let dir: string;
let db: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment every run sees: a home and XDG data folder inside the temp dir. */
function cliEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: path.join(dir, 'xdg'), NODE_OPTIONS: '', ...env };
}

/** The real program as a process: node + tsx on electron/cli/main.ts. */
function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): Run {
  const r = spawnSync(process.execPath, ['--import', TSX, path.join(ROOT, 'electron/cli/main.ts'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: cliEnv(env),
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same runner in-process, stdout and stderr captured as a pipe would (not a terminal). */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: cliEnv(env),
    cwd: dir,
  });
  return { code, stdout, stderr };
}

beforeAll(() => {
  tmp = tempDir('cs-cli-');
  ({ dir, dbPath: db } = tmp);
});
afterAll(() => tmp.cleanup());

// The spawned tests start a Node process each; on a busy 2-core machine that takes seconds.
describe('compaction-studio CLI', { timeout: 180_000 }, () => {
  it('imports with --json printing exactly the sessions shape, subagents included (spawned: stdout is one JSON document)', () => {
    const r = spawnCli(['import', SPOTTER, TAU, '--db', db, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { sessions: Array<Record<string, unknown>> };
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(out.sessions.map((s) => Object.keys(s))).toEqual(Array(4).fill(['id', 'title', 'format', 'turns', 'tokens', 'toolCalls', 'externalCompactions', 'duplicate']));
    expect(out.sessions.map((s) => [s.id, s.format, s.turns, s.toolCalls, s.externalCompactions, s.duplicate])).toEqual([
      [1, 'claude-code', 306, 186, 1, false],
      [2, 'claude-code', 6, 2, 0, false],
      [3, 'claude-code', 2, 0, 0, false],
      [4, 'openai', 46, 9, 0, false],
    ]);
    expect(out.sessions[0].title).toBe('Implement spotter-gqc');
    expect(out.sessions[0].tokens).toBe(140001);
  });

  it('reports a re-import as a duplicate, in human form with aligned columns', async () => {
    const r = await cli(['import', TAU, '--db', db]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`Imported 0 sessions, 1 already in the store (duplicate) into ${db}`);
    expect(lines[2]).toBe('ID  FORMAT  TURNS  TOKENS  TOOL CALLS  COMPACTIONS  STATUS     TITLE');
    expect(lines[3]).toBe(' 4  openai     46    4110           9            0  duplicate  Hi! I need to change one of my upcoming flights. Could you assist me …');
  });

  it('lists sessions, shows one and searches with --json', async () => {
    const sessions = JSON.parse((await cli(['sessions', '--db', db, '--json'])).stdout) as { sessions: Array<Record<string, unknown>> };
    expect(sessions.sessions.map((s) => [s.id, s.parentSessionId, s.agentId, s.turns])).toEqual([
      [1, null, null, 306],
      [2, 1, 'a881341', 6],
      [3, 1, 'acompact-fffbd0', 2],
      [4, null, null, 46],
    ]);

    const show = await cli(['show', '1', '--db', db, '--json', '--limit', '3']);
    expect(show.code).toBe(0);
    const detail = JSON.parse(show.stdout) as { session: { id: number }; externalCompactions: Array<Record<string, unknown>>; children: unknown[]; turns: Array<Record<string, unknown>> };
    expect(detail.session.id).toBe(1);
    expect(detail.externalCompactions[0]).toMatchObject({ trigger: 'auto', preTokens: 167094, firstPosition: 0, lastPosition: 206, boundaryPosition: 207 });
    expect(detail.children).toHaveLength(2);
    expect(detail.turns).toEqual([
      { position: 0, role: 'user', tokens: 5, chars: 21, preview: 'Implement spotter-gqc' },
      expect.objectContaining({ position: 1, role: 'assistant' }),
      expect.objectContaining({ position: 2, role: 'user' }),
    ]);

    const search = JSON.parse((await cli(['search', 'XEWRD9', '--db', db, '--json', '--limit', '2'])).stdout) as { hits: Array<Record<string, unknown>> };
    expect(search.hits).toHaveLength(2);
    expect(search.hits.every((h) => h.sessionId === 4 && typeof h.snippet === 'string' && (h.snippet as string).includes('[XEWRD9]'))).toBe(true);
  });

  it('shows a session in human form: header, recorded compaction, turn table', async () => {
    const r = await cli(['show', '4', '--db', db, '--limit', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 6)).toEqual([
      'Session 4: Hi! I need to change one of my upcoming flights. Could you assist me with that?',
      '  format openai, 46 turns, 4110 tokens (o200k_base), 9 tool calls, from tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json',
      '',
      'POS  ROLE    TOKENS  PREVIEW',
      '  0  system    1248  # Airline Agent Policy The current time is 2024-05-15 15:00:00 EST. As an airline agent, you can he…',
      '  1  user        19  Hi! I need to change one of my upcoming flights. Could you assist me with that?',
    ]);
  });

  it('fails on bad input with a clear stderr message, exit 1 and nothing on stdout', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(bad, '{"role":"user","content":"hi"}\n{"role":"user","content":\n');
    const human = await cli(['import', bad, '--db', db]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^compaction-studio: bad\.jsonl, line 2: not valid JSON \(.+\): expected one JSON object per line\n$/);
    const json = await cli(['import', bad, '--db', db, '--json']);
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'import_error', message: expect.stringMatching(/^bad\.jsonl, line 2: not valid JSON/), file: 'bad.jsonl', line: 2 } });
    const missing = await cli(['import', path.join(dir, 'missing.json'), '--db', db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`compaction-studio: missing.json: file not found (${path.join(dir, 'missing.json')}): expected a transcript file\n`);
  });

  it('exits 2 on usage errors and 1 on an unknown session', async () => {
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^compaction-studio: unknown command "frobnicate" \(commands: import, sessions, show, search, delete/);
    const badOption = await cli(['sessions', '--bogus', '--db', db]);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toBe("compaction-studio: Unknown option '--bogus'\nRun 'compaction-studio sessions --help' for usage.\n");
    expect((await cli(['show', '--db', db])).code).toBe(2);
    const notFound = await cli(['show', '99', '--db', db, '--json']);
    expect(notFound.code).toBe(1);
    expect(notFound.stdout).toBe('');
    expect(JSON.parse(notFound.stderr)).toEqual({ error: { code: 'not_found', message: 'no session with id 99 (see `compaction-studio sessions`)' } });
  });

  it('prints --help for the program and each command', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.split('\n')[0]).toBe('Usage: compaction-studio <command> [options]');
    const importHelp = await cli(['import', '--help']);
    expect(importHelp.code).toBe(0);
    expect(importHelp.stdout.split('\n')[0]).toBe('Usage: compaction-studio import <file|folder...> [--format F] [--tokenizer T] [--db PATH] [--json]');
    // The other commands straight through runCli with a bare io (no PATH or HOME in env).
    for (const [name, usage] of [
      ['sessions', 'sessions [--db PATH] [--json]'],
      ['show', 'show <session> [--from N] [--limit N] [--db PATH] [--json]'],
      ['search', 'search <query...> [--limit N] [--db PATH] [--json]'],
      ['delete', 'delete <session> [--db PATH] [--json]'],
    ]) {
      let out = '';
      const code = await runCli([name, '--help'], { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true }, env: {}, cwd: dir });
      expect(code).toBe(0);
      expect(out.split('\n')[0]).toBe(`Usage: compaction-studio ${usage}`);
      expect(out).toContain('--db PATH');
    }
  });

  it('imports a folder: every transcript under it, recursively, the same sessions as importing its files', async () => {
    const folder = path.join(dir, 'cc-folder');
    fs.cpSync(path.join(ROOT, 'test/fixtures/claude-code'), folder, { recursive: true });
    const files = fs.readdirSync(folder).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(folder, f));
    type S = { title: string; format: string; turns: number; toolCalls: number; duplicate: boolean };
    const shape = (r: Run): Array<Omit<S, 'duplicate'>> => (JSON.parse(r.stdout) as { sessions: S[] }).sessions.map(({ title, format, turns, toolCalls }) => ({ title, format, turns, toolCalls }));
    const byFolder = await cli(['import', folder, '--db', path.join(dir, 'folder.sqlite'), '--json']);
    const byFiles = await cli(['import', ...files, '--db', path.join(dir, 'files.sqlite'), '--json']);
    expect(byFolder.stderr).toBe('');
    expect(byFolder.code).toBe(0);
    // 19 transcripts: 8 subagent files (ef958aa1's 6, spotter's 2) become children of their session files, the
    // 3 coderabbit agents have no session file (top-level), 5c0375b4 has 2 inline sidechains: 11 + 8 + 2 = 21 sessions.
    expect(shape(byFolder)).toHaveLength(21);
    expect(shape(byFolder)).toEqual(shape(byFiles));
  });

  it('deletes a session with its children', async () => {
    const r = await cli(['delete', '1', '--db', db, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ deleted: true, id: 1, childSessions: 2 });
    const left = JSON.parse((await cli(['sessions', '--db', db, '--json'])).stdout) as { sessions: Array<{ id: number }> };
    expect(left.sessions.map((s) => s.id)).toEqual([4]);
  });

  it('finds the database from COMPACTION_STUDIO_DB, else under XDG_DATA_HOME', async () => {
    const envDb = path.join(dir, 'from-env.db');
    expect((await cli(['import', TAU, '--json'], { COMPACTION_STUDIO_DB: envDb })).code).toBe(0);
    expect(fs.existsSync(envDb)).toBe(true);
    expect((await cli(['import', TAU, '--json'])).code).toBe(0);
    expect(fs.existsSync(path.join(dir, 'xdg', 'compaction-studio', 'studio.db'))).toBe(true);
    // --db wins over the environment.
    const flagDb = path.join(dir, 'flag.db');
    expect(JSON.parse((await cli(['sessions', '--json', '--db', flagDb], { COMPACTION_STUDIO_DB: envDb })).stdout)).toEqual({ sessions: [] });
  });

  it('exits 2 on a usage error and 1 on a failure as a real process, errors on stderr only (spawned)', () => {
    const usage = spawnCli(['frobnicate', '--json']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(JSON.parse(usage.stderr)).toEqual({ error: { code: 'usage', message: expect.stringMatching(/^unknown command "frobnicate"/) } });
    const failure = spawnCli(['show', '99', '--db', db, '--json']);
    expect(failure.code).toBe(1);
    expect(failure.stdout).toBe('');
    expect(JSON.parse(failure.stderr)).toEqual({ error: { code: 'not_found', message: 'no session with id 99 (see `compaction-studio sessions`)' } });
  });

  it('runs through bin/compaction-studio.cjs', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/compaction-studio.cjs'), 'import', TAU, '--db', path.join(dir, 'bin.db'), '--json'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).sessions[0]).toMatchObject({ format: 'openai', turns: 46, toolCalls: 9, duplicate: false });
  });
});
