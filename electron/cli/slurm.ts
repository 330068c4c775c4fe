/**
 * `sweep --slurm`: a sweep as a Slurm job array (docs/sweeps.md). The CLI copies the base
 * database once per shard (SQLite's online backup: a consistent copy, WAL included, which a
 * plain `cp` of the file is not),
 * writes two batch scripts into the sweep's folder — `sweep.sbatch`, one array task per shard
 * (`--shard I/N`, into its own copy), and `merge.sbatch`, which merges the shards into the base
 * — submits the array, then the merge as a job dependent on it (`afterok`, killed if the array
 * fails so nothing waits forever), and waits for the merge (`sbatch --wait`) unless told not to.
 *
 * The scripts call this very CLI: the bundle when running from dist/, else the TypeScript entry
 * through tsx, with the Node that runs now; the cluster's nodes must see the same paths (a
 * shared file system), as they must see the databases.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DB } from '../store/db.js';

/** The command line that runs this CLI (argv, unquoted). */
export function cliCommand(moduleUrl: string = import.meta.url): string[] {
  if (moduleUrl.endsWith('.cjs')) return [process.execPath, fileURLToPath(moduleUrl)];
  const tsx = pathToFileURL(createRequire(moduleUrl).resolve('tsx')).href;
  return [process.execPath, '--import', tsx, fileURLToPath(new URL('./main.ts', moduleUrl))];
}

/** A word for /bin/bash, quoted when it needs to be. */
export function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
const line = (words: readonly string[]) => words.map(shellWord).join(' ');

export interface SlurmSweepPlan {
  /** The folder of the scripts, the shard databases, their JSON reports and the logs. */
  dir: string;
  /** The base database: the shards are its copies, the merge writes into it. */
  baseDb: string;
  shards: number;
  /** `--jobs` of each array task (and its `--cpus-per-task`). */
  jobsPerTask: number;
  partition?: string;
  jobName: string;
  /** The sweep's own arguments (strategy, grid, sessions, …), without --db, --shard, --jobs or an output format. */
  sweepArgs: string[];
  cli: string[];
}

export const shardDb = (dir: string, i: number) => path.join(dir, `shard-${i}.db`);
export const shardReport = (dir: string, i: number) => path.join(dir, `shard-${i}.json`);

/** The two batch scripts, as text. */
export function slurmScripts(p: SlurmSweepPlan): { sweep: string; merge: string } {
  const head = (name: string, output: string) =>
    ['#!/bin/bash', `#SBATCH --job-name=${shellWord(name)}`, `#SBATCH --output=${shellWord(output)}`, `#SBATCH --chdir=${shellWord(p.dir)}`, ...(p.partition ? [`#SBATCH --partition=${shellWord(p.partition)}`] : [])];
  const sweep = [
    ...head(p.jobName, path.join(p.dir, 'log', 'shard-%a.out')),
    `#SBATCH --array=1-${p.shards}`,
    `#SBATCH --cpus-per-task=${p.jobsPerTask}`,
    'set -euo pipefail',
    'I=$SLURM_ARRAY_TASK_ID',
    '# A requeued task reopens its own copy and resumes: the pairs it finished are reused.',
    `${line([...p.cli, 'sweep', ...p.sweepArgs, '--jobs', String(p.jobsPerTask)])} --db "shard-$I.db" --shard "$I/${p.shards}" --json > "shard-$I.json.part"`,
    'mv "shard-$I.json.part" "shard-$I.json"',
    '',
  ].join('\n');
  const shards = Array.from({ length: p.shards }, (_, i) => shardDb(p.dir, i + 1));
  const merge = [...head(`${p.jobName}-merge`, path.join(p.dir, 'log', 'merge.out')), 'set -euo pipefail', line([...p.cli, 'merge', ...shards, '--db', p.baseDb]), ''].join('\n');
  return { sweep, merge };
}

/** Writes the scripts and the shard copies that do not exist yet (a repeated submission keeps what its shards did). */
export async function prepareSlurmSweep(db: DB, p: SlurmSweepPlan): Promise<{ sweepScript: string; mergeScript: string }> {
  fs.mkdirSync(path.join(p.dir, 'log'), { recursive: true });
  const scripts = slurmScripts(p);
  const sweepScript = path.join(p.dir, 'sweep.sbatch');
  const mergeScript = path.join(p.dir, 'merge.sbatch');
  fs.writeFileSync(sweepScript, scripts.sweep, { mode: 0o755 });
  fs.writeFileSync(mergeScript, scripts.merge, { mode: 0o755 });
  for (let i = 1; i <= p.shards; i++) {
    const f = shardDb(p.dir, i);
    if (!fs.existsSync(f)) await db.backup(f);
  }
  return { sweepScript, mergeScript };
}

export class SlurmError extends Error {}

/** Runs `sbatch` with these arguments; resolves with its stdout (a job id with --parsable). */
export function sbatch(args: string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sbatch', args, { env, signal, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new SlurmError(`sbatch ${args.join(' ')} failed: ${(stderr || err.message).trim()}`));
      else resolve(stdout.trim());
    });
  });
}

/** The job id of `sbatch --parsable` output ("id" or "id;cluster"). */
export function parsableJobId(out: string): string {
  const id = out.split('\n').pop()!.split(';')[0].trim();
  if (!/^\d+$/.test(id)) throw new SlurmError(`sbatch printed no job id: "${out}"`);
  return id;
}

/** Submits the array and the merge after it; with `wait`, resolves once the merge job has ended (rejects when it failed or was killed). */
export async function submitSlurmSweep(scripts: { sweepScript: string; mergeScript: string }, o: { wait: boolean; env: NodeJS.ProcessEnv; signal?: AbortSignal }): Promise<{ arrayJob: string; mergeJob: string | null }> {
  const arrayJob = parsableJobId(await sbatch(['--parsable', scripts.sweepScript], o.env, o.signal));
  const mergeArgs = ['--parsable', `--dependency=afterok:${arrayJob}`, '--kill-on-invalid-dep=yes', scripts.mergeScript];
  if (!o.wait) return { arrayJob, mergeJob: parsableJobId(await sbatch(mergeArgs, o.env, o.signal)) };
  // With --wait sbatch prints the id only when the job ends, and exits with the job's exit code.
  await sbatch(['--wait', ...mergeArgs], o.env, o.signal);
  return { arrayJob, mergeJob: null };
}
