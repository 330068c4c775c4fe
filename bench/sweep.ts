/**
 * Sweep benchmark: 8 generated sessions × 6 dag points (freshTailCount 8/16/32 ×
 * leafChunkTokens 10,000/20,000), one extractive pass per pair, run with `jobs: 1` (one after
 * another in this thread) and with `jobs: N` (N worker threads, the CLI's `--jobs N`), each on
 * its own fresh copy of the same database, in one run. Reports points per second of each and
 * their ratio, and that both gave the same rows.
 * `npx tsx bench/sweep.ts [--turns T] [--jobs N] [--json]` runs it alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../electron/store/db.js';
import { importText } from '../electron/importers/import.js';
import { runSweep, type RunSweepOptions } from '../electron/engine/sweep.js';
import { createSweepPool } from '../electron/services/sweep-pool.js';
import { defaultWorkerScript } from '../electron/services/studio-service.js';
import { syntheticTranscriptJsonl } from './pass.js';

const SESSIONS = 8;

export interface SweepBenchResult {
  sessions: number;
  points: number;
  turnsPerSession: number;
  jobs: number;
  oneJobMs: number;
  nJobsMs: number;
  oneJobPointsPerSecond: number;
  nJobsPointsPerSecond: number;
  /** Time with 1 job ÷ time with N: the speed-up. */
  speedup: number;
  sameRows: boolean;
}

export async function benchSweep(o: { turns?: number; jobs?: number } = {}): Promise<SweepBenchResult> {
  const turns = o.turns ?? 4_000;
  const jobs = o.jobs ?? 2;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-sweep-'));
  try {
    const base = path.join(dir, 'base.db');
    const db = openDatabase(base);
    // Sessions of slightly different lengths: distinct transcripts (import keys sessions by content).
    for (let i = 0; i < SESSIONS; i++) importText(db, `bench-${i}.jsonl`, syntheticTranscriptJsonl(turns + 37 * i));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const options: RunSweepOptions = {
      sessions: 'all',
      strategy: 'dag',
      grid: [
        { name: 'freshTailCount', values: [8, 16, 32] },
        { name: 'leafChunkTokens', values: [10_000, 20_000] },
      ],
      kind: 'pass',
      summarizer: { kind: 'extractive' },
    };
    const timed = async (name: string, n: number) => {
      const file = path.join(dir, `${name}.db`);
      fs.copyFileSync(base, file);
      const d = openDatabase(file);
      const pool = n > 1 ? createSweepPool({ dbPath: file, workerScript: defaultWorkerScript(), size: n }) : null;
      try {
        const started = performance.now();
        const r = await runSweep(d, { ...options, ...(pool ? { jobs: n, runPair: pool.runPair } : {}) });
        const ms = performance.now() - started;
        if (r.ran !== SESSIONS * 6 || r.failed > 0) throw new Error(`sweep ${name}: ran ${r.ran}, failed ${r.failed}`);
        return { ms, rows: r.rows.map(({ variantId: _v, runId: _r, ...rest }) => rest) };
      } finally {
        await pool?.close();
        d.close();
      }
    };
    const one = await timed('one', 1);
    const many = await timed('many', jobs);
    const points = SESSIONS * 6;
    return {
      sessions: SESSIONS,
      points,
      turnsPerSession: turns,
      jobs,
      oneJobMs: Math.round(one.ms),
      nJobsMs: Math.round(many.ms),
      oneJobPointsPerSecond: Math.round((points / one.ms) * 1000 * 100) / 100,
      nJobsPointsPerSecond: Math.round((points / many.ms) * 1000 * 100) / 100,
      speedup: Math.round((one.ms / many.ms) * 100) / 100,
      sameRows: JSON.stringify(one.rows) === JSON.stringify(many.rows),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const r = await benchSweep({ turns: arg('--turns'), jobs: arg('--jobs') });
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(r)}\n`);
  else process.stdout.write(`${r.sessions} sessions × 6 points (${r.turnsPerSession} turns each): --jobs 1 ${r.oneJobMs} ms (${r.oneJobPointsPerSecond} points/s), --jobs ${r.jobs} ${r.nJobsMs} ms (${r.nJobsPointsPerSecond} points/s): ${r.speedup}× ${r.sameRows ? 'same rows' : 'ROWS DIFFER'}\n`);
}
