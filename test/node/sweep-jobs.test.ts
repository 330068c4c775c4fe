/**
 * `sweep --jobs N` (electron/engine/sweep.ts with electron/services/sweep-pool.ts): pairs run in
 * N worker threads on one database give the rows of `--jobs 1`, row for row; a cancelled
 * parallel sweep records only finished pairs and resumes.
 *
 * The corpus: the claude-code spotter sessions and the openai fixtures, imported into a base
 * database that each case copies, so every sweep starts from the same state.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/run.js';
import { importFiles } from '../../electron/importers/import.js';
import { openDatabase } from '../../electron/store/db.js';
import type { SweepRow } from '../../shared/sweep/types.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

class Sink {
  text = '';
  isTTY = false;
  write(s: string) {
    this.text += s;
    return true;
  }
}

let tmp: TempDir;
const file = (name: string) => path.join(tmp.dir, name);
async function cli(db: string, args: string[], signal?: AbortSignal, onErr?: (text: string) => void) {
  const stdout = new Sink();
  const stderr = new Sink();
  if (onErr) stderr.write = (s: string) => ((stderr.text += s), onErr(stderr.text), true);
  const code = await runCli([...args, '--db', file(db)], { stdout, stderr, env: {}, cwd: tmp.dir, signal });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
interface SweepJson {
  sweepId: number;
  ran: number;
  reused: number;
  summarizerCalls: number;
  rows: SweepRow[];
}
/** A row without the ids a database assigns and a replay's summarizerCalls (which depends on which point filled the summary cache first). */
const idless = (rows: readonly SweepRow[]) =>
  rows.map(({ variantId: _v, runId: _r, replay, ...rest }) => {
    if (replay === null) return { ...rest, replay };
    const { summarizerCalls: _c, ...figures } = replay;
    return { ...rest, replay: figures };
  });

const WINDOW = ['sweep', '--strategy', 'window', '--grid', 'keepFirst=0,1,2', '--grid', 'maxTurns=5,10,20'];
const DAG = ['sweep', '--strategy', 'dag', '--grid', 'freshTailCount=8,32', '--grid', 'leafChunkTokens=10000,20000', '--replay', '--summarizer', 'extractive'];

let sessions = 0;
beforeAll(() => {
  tmp = tempDir('cs-sweep-jobs-');
  const cc = path.join(FIXTURES, 'claude-code');
  const oa = path.join(FIXTURES, 'openai');
  const files = [...fs.readdirSync(cc).filter((f) => f.startsWith('spotter__') && f.endsWith('.jsonl')).map((f) => path.join(cc, f)), ...fs.readdirSync(oa).filter((f) => f.endsWith('.json')).map((f) => path.join(oa, f))];
  const base = openDatabase(file('base.db'));
  importFiles(base, files);
  sessions = (base.prepare('SELECT COUNT(*) AS n FROM sessions WHERE parent_session_id IS NULL').get() as { n: number }).n;
  base.close();
  for (const n of ['one', 'two', 'cancelled']) fs.copyFileSync(file('base.db'), file(`${n}.db`));
}, 120_000);
afterAll(() => tmp.cleanup());

describe('sweep --jobs', { timeout: 300_000 }, () => {
  it('--jobs 2 gives the rows of --jobs 1 row for row, passes and replays', async () => {
    expect(sessions).toBeGreaterThanOrEqual(4);
    const one = JSON.parse((await cli('one.db', [...WINDOW, '--jobs', '1', '--json'])).stdout) as SweepJson;
    const two = await cli('two.db', [...WINDOW, '--jobs', '2', '--json']);
    expect(two.code).toBe(0);
    const parallel = JSON.parse(two.stdout) as SweepJson;
    expect(one.rows).toHaveLength(9 * sessions);
    expect([parallel.ran, parallel.reused]).toEqual([9 * sessions, 0]);
    expect(parallel.rows.map((r) => r.index)).toEqual([...Array(9 * sessions).keys()]);
    expect(idless(parallel.rows)).toEqual(idless(one.rows));
    // Progress still names every pair once, in sweep order.
    const ks = [...two.stderr.matchAll(/^sweep: point (\d+) of (\d+): /gm)].map((m) => Number(m[1]));
    expect(ks).toEqual(Array.from({ length: 9 * sessions }, (_, i) => i + 1));

    const dagOne = JSON.parse((await cli('one.db', [...DAG, '--jobs', '1', '--json'])).stdout) as SweepJson;
    const dagTwo = JSON.parse((await cli('two.db', [...DAG, '--jobs', '2', '--json'])).stdout) as SweepJson;
    expect(dagTwo.rows).toHaveLength(4 * sessions);
    expect(dagTwo.rows.every((r) => r.status === 'completed' && r.replay !== null)).toBe(true);
    expect(idless(dagTwo.rows)).toEqual(idless(dagOne.rows));
    // Every point names a distinct variant of its own session, and a run of it.
    const db = openDatabase(file('two.db'), { readonly: true });
    try {
      for (const row of [...parallel.rows, ...dagTwo.rows]) expect(db.prepare('SELECT v.session_id FROM runs r JOIN variants v ON v.id = r.variant_id WHERE r.id = ? AND v.id = ?').get(row.runId, row.variantId)).toEqual({ session_id: row.sessionId });
      expect(new Set(dagTwo.rows.map((r) => r.variantId)).size).toBe(4 * sessions);
    } finally {
      db.close();
    }
  });

  it('a parallel sweep cancelled midway records only finished pairs and resumes to the same rows', async () => {
    const controller = new AbortController();
    const n = 4 * sessions;
    const cancelled = await cli('cancelled.db', [...DAG, '--jobs', '2', '--json'], controller.signal, (text) => {
      if (/^sweep: point 3 of /m.test(text)) controller.abort();
    });
    expect(cancelled.code).toBe(130);
    expect(cancelled.stderr).toMatch(/cancelled after \d+ pairs: run it again to resume/);
    const db = openDatabase(file('cancelled.db'));
    const points = (db.prepare('SELECT COUNT(*) AS n FROM sweep_points').get() as { n: number }).n;
    // Every recorded point names a completed run; the cancelled runs are not points.
    const bad = db.prepare("SELECT COUNT(*) AS n FROM sweep_points p JOIN runs r ON r.id = p.run_id WHERE r.status <> 'completed'").get() as { n: number };
    const cancelledRuns = (db.prepare("SELECT COUNT(*) AS n FROM runs WHERE status = 'cancelled'").get() as { n: number }).n;
    db.close();
    expect(points).toBeLessThan(n);
    expect(bad.n).toBe(0);
    expect(cancelledRuns).toBeGreaterThan(0);

    const resumed = JSON.parse((await cli('cancelled.db', [...DAG, '--jobs', '2', '--json'])).stdout) as SweepJson;
    expect(resumed.reused).toBe(points);
    expect(resumed.ran).toBe(n - points);
    const reference = JSON.parse((await cli('one.db', [...DAG, '--jobs', '1', '--json'])).stdout) as SweepJson;
    expect(reference.ran).toBe(0);
    expect(idless(resumed.rows)).toEqual(idless(reference.rows));
  });

  it('refuses --jobs 0 and the Slurm options without --slurm', async () => {
    const zero = await cli('one.db', [...WINDOW, '--jobs', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--jobs must be between 1 and 256/);
    const partition = await cli('one.db', [...WINDOW, '--partition', 'main']);
    expect(partition.code).toBe(2);
    expect(partition.stderr).toMatch(/--partition applies to --slurm/);
  });
});
