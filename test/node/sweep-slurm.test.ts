/**
 * `sweep --slurm` (electron/cli/slurm.ts) on a REAL one-node Slurm cluster: the job array of
 * shards and the dependent merge job, waited for, give the rows of the unsharded sweep.
 *
 * The cluster: $SLURM_CONF when set (.ci/run starts one with scripts/slurm-local.sh), else one
 * this file starts in its temp folder with that script (needs root and Debian's slurm-wlm and
 * munge). Without `sbatch` the test FAILS under CI (CI=true) and is skipped elsewhere, saying so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/run.js';
import { importFiles } from '../../electron/importers/import.js';
import { openDatabase } from '../../electron/store/db.js';
import type { SweepRow } from '../../shared/sweep/types.js';
import { FIXTURES, ROOT } from '../helpers/fixture-sessions.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

// On PATH, not `sbatch --version`: without a configuration that exits 1 too.
const haveSbatch = spawnSync('/bin/sh', ['-c', 'command -v sbatch']).status === 0;
const inCi = process.env.CI === 'true' || process.env.CI === '1';
if (!haveSbatch && !inCi) console.warn('sweep-slurm.test.ts: skipped: sbatch is not installed (apt-get install -y slurm-wlm munge); under CI this test fails instead');

class Sink {
  text = '';
  isTTY = false;
  write(s: string) {
    this.text += s;
    return true;
  }
}

let tmp: TempDir;
let clusterDir: string | null = null;
const file = (name: string) => path.join(tmp.dir, name);
async function cli(db: string, args: string[]) {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runCli([...args, '--db', file(db)], { stdout, stderr, env: {}, cwd: tmp.dir });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
interface SweepJson {
  sweepId: number;
  ran: number;
  reused: number;
  rows: SweepRow[];
}
/** Without the ids a database assigns and a replay's summarizerCalls (the summary cache a shard saw). */
const idless = (rows: readonly SweepRow[]) =>
  rows.map(({ variantId: _v, runId: _r, replay, ...rest }) => {
    if (replay === null) return { ...rest, replay };
    const { summarizerCalls: _c, ...figures } = replay;
    return { ...rest, replay: figures };
  });

const WINDOW = ['sweep', '--strategy', 'window', '--grid', 'keepFirst=0,1,2', '--grid', 'maxTurns=5,10,20'];
const DAG = ['sweep', '--strategy', 'dag', '--grid', 'freshTailCount=8,32', '--set', 'leafChunkTokens=10000', '--replay', '--summarizer', 'extractive'];

describe('sweep --slurm on a one-node Slurm cluster', { timeout: 600_000 }, () => {
  it('has sbatch (CI installs slurm-wlm and munge and starts the cluster: .ci/run)', () => {
    if (!haveSbatch && !inCi) return;
    expect(haveSbatch, 'sbatch is not installed: run scripts/slurm-local.sh from .ci/run after apt-get install slurm-wlm munge').toBe(true);
  });

  describe.skipIf(!haveSbatch)('with the cluster', () => {
    let sessions = 0;
    beforeAll(() => {
      tmp = tempDir('cs-sweep-slurm-');
      if (!process.env.SLURM_CONF) {
        clusterDir = file('cluster');
        const out = execFileSync(path.join(ROOT, 'scripts', 'slurm-local.sh'), ['start', clusterDir], { encoding: 'utf8' });
        process.env.SLURM_CONF = /SLURM_CONF=(\S+)/.exec(out)![1];
      }
      const cc = path.join(FIXTURES, 'claude-code');
      const oa = path.join(FIXTURES, 'openai');
      const files = [...fs.readdirSync(cc).filter((f) => f.startsWith('spotter__') && f.endsWith('.jsonl')).map((f) => path.join(cc, f)), ...fs.readdirSync(oa).filter((f) => f.endsWith('.json')).map((f) => path.join(oa, f))];
      const base = openDatabase(file('base.db'));
      importFiles(base, files);
      sessions = (base.prepare('SELECT COUNT(*) AS n FROM sessions WHERE parent_session_id IS NULL').get() as { n: number }).n;
      base.close();
      for (const n of ['local', 'slurm', 'nowait']) fs.copyFileSync(file('base.db'), file(`${n}.db`));
    }, 120_000);
    afterAll(() => {
      if (clusterDir) {
        execFileSync(path.join(ROOT, 'scripts', 'slurm-local.sh'), ['stop', clusterDir]);
        delete process.env.SLURM_CONF;
      }
      tmp.cleanup();
    });

    it('a 3-task job array and its merge job give the rows of the unsharded sweep, passes and replays', async () => {
      const local = JSON.parse((await cli('local.db', [...WINDOW, '--jobs', '1', '--json'])).stdout) as SweepJson;
      const r = await cli('slurm.db', [...WINDOW, '--slurm', '--shards', '3', '--partition', 'main', '--json']);
      expect(r.stderr).toMatch(/Slurm job array \d+ and its merge have ended/);
      expect(r.code).toBe(0);
      const slurm = JSON.parse(r.stdout) as SweepJson;
      expect(slurm.rows).toHaveLength(9 * sessions);
      // Every pair ran once, in one of the array's tasks.
      expect([slurm.ran, slurm.reused]).toEqual([9 * sessions, 0]);
      expect(idless(slurm.rows)).toEqual(idless(local.rows));
      // What the cluster ran: three shard copies, each with its report, and the scripts.
      const dir = file('slurm.db.slurm');
      const reports = [1, 2, 3].map((i) => JSON.parse(fs.readFileSync(path.join(dir, `shard-${i}.json`), 'utf8')) as SweepJson);
      expect(reports.map((x) => x.rows.length)).toEqual([1, 2, 3].map((i) => Math.ceil((9 * sessions - (i - 1)) / 3)));
      expect(fs.readFileSync(path.join(dir, 'sweep.sbatch'), 'utf8')).toMatch(/^#SBATCH --array=1-3$/m);

      const dagLocal = JSON.parse((await cli('local.db', [...DAG, '--jobs', '1', '--json'])).stdout) as SweepJson;
      const dagSlurm = await cli('slurm.db', [...DAG, '--slurm', '--shards', '2', '--json']);
      expect(dagSlurm.code).toBe(0);
      const dag = JSON.parse(dagSlurm.stdout) as SweepJson;
      expect(dag.rows).toHaveLength(2 * sessions);
      expect(dag.rows.every((x) => x.status === 'completed' && x.replay!.modelCalls > 0)).toBe(true);
      expect(idless(dag.rows)).toEqual(idless(dagLocal.rows));
    });

    it('--no-wait submits, prints the job ids and how to read the rows; once done, the sweep runs nothing', async () => {
      const r = await cli('nowait.db', [...WINDOW, '--slurm', '--shards', '2', '--no-wait', '--json']);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as { slurm: { arrayJob: string; mergeJob: string; shards: number } };
      expect(out.slurm.shards).toBe(2);
      expect(r.stderr).toContain(`squeue -j ${out.slurm.arrayJob},${out.slurm.mergeJob}`);
      // Wait the way a user would: until the merge job has left the queue.
      for (let i = 0; i < 600; i++) {
        const q = execFileSync('squeue', ['-h', '-j', `${out.slurm.arrayJob},${out.slurm.mergeJob}`], { encoding: 'utf8' });
        if (q.trim() === '') break;
        await new Promise((res) => setTimeout(res, 500));
      }
      const read = JSON.parse((await cli('nowait.db', [...WINDOW, '--jobs', '1', '--json'])).stdout) as SweepJson;
      expect([read.ran, read.reused]).toEqual([0, 9 * sessions]);
      const local = JSON.parse((await cli('local.db', [...WINDOW, '--jobs', '1', '--json'])).stdout) as SweepJson;
      expect(idless(read.rows)).toEqual(idless(local.rows));
    });
  });
});
