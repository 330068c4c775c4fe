/**
 * The CLI as a real process (node + tsx on electron/cli/main.ts), for tests of what only a
 * process shows: its exit status, its stderr, a SIGKILL half-way, another user's permissions.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './fixture-sessions.js';

// The tsx loader by absolute URL: the CLI may run with a temp dir as its working directory.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = path.join(ROOT, 'electron/cli/main.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Run as this user id (needs root): `setpriv` drops to it and its group. */
  uid?: number;
  /** runCliProcess: kill it after this long (default 120 s). */
  timeoutMs?: number;
}

function command(args: readonly string[], o: SpawnOptions): { file: string; argv: string[]; env: NodeJS.ProcessEnv } {
  const env = { PATH: process.env.PATH, HOME: o.cwd, XDG_DATA_HOME: path.join(o.cwd, 'xdg'), NODE_OPTIONS: '', ...o.env };
  const node = [process.execPath, '--import', TSX, MAIN, ...args];
  if (o.uid === undefined) return { file: node[0], argv: node.slice(1), env };
  return { file: 'setpriv', argv: [`--reuid=${o.uid}`, `--regid=${o.uid}`, '--clear-groups', ...node], env };
}

/** Runs the CLI to its end. */
export function runCliProcess(args: readonly string[], o: SpawnOptions): CliRun {
  const c = command(args, o);
  const r = spawnSync(c.file, c.argv, { cwd: o.cwd, encoding: 'utf8', env: c.env, timeout: o.timeoutMs ?? 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts the CLI and leaves it running (to kill it half-way); stdout and stderr are collected. */
export function startCliProcess(args: readonly string[], o: SpawnOptions): { child: ChildProcess; output: { stdout: string; stderr: string }; exited: Promise<number | null> } {
  const c = command(args, o);
  const child = spawn(c.file, c.argv, { cwd: o.cwd, env: c.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** Runs the CLI to its end without blocking this process (a server in the test must answer it meanwhile). */
export async function runCliAsync(args: readonly string[], o: SpawnOptions): Promise<CliRun> {
  const { output, exited } = startCliProcess(args, o);
  const code = await exited;
  return { code, ...output };
}
