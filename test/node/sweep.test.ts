/**
 * `sweep` (electron/engine/sweep.ts, electron/cli/commands/sweep.ts): a grid of parameter
 * points crossed with every root session of the real fixtures, resumable, sharded and merged,
 * as JSON and CSV; and the Pareto front of cost against retention (shared/compare/pareto.ts).
 *
 * The corpus: every real fixture (test/helpers/fixture-sessions.ts) imported into one base
 * database: 30 sessions, 20 of them root sessions (the 10 others are subagent sessions: 6
 * under the claude-code-log worktrees session, 2 under the /orchestrator session, 2 under
 * spotter: the Task subagent and Claude Code's compaction call), so `--sessions all` = 20.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/run.js';
import { importFiles } from '../../electron/importers/import.js';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { getSweepDetail, listSweeps } from '../../electron/store/sweeps.js';
import { deleteVariant } from '../../electron/store/variants.js';
import { paretoFront } from '../../shared/compare/pareto.js';
import { gridPoints, parseGrid, shardPairs, sweepPairs } from '../../shared/sweep/grid.js';
import { retentionCells, sweepCsvHeader } from '../../shared/sweep/table.js';
import { sweepChart } from '../../shared/sweep/chart.js';
import { FACT_CATEGORIES } from '../../shared/facts/types.js';
import type { SweepRow } from '../../shared/sweep/types.js';
import { fixtureFiles } from '../helpers/fixture-sessions.js';
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
async function cli(db: string, args: string[]) {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runCli([...args, '--db', file(db)], { stdout, stderr, env: {}, cwd: tmp.dir });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
const count = (db: DB, table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

/** The full grid: window's two parameters × 3 values each = 9 points, a pass per pair. */
const WINDOW = ['sweep', '--strategy', 'window', '--grid', 'keepFirst=0,1,2', '--grid', 'maxTurns=5,10,20'];
/** A small replay grid of dag on the spotter session (id 17 in the base) with the extractive summarizer: 2 × 2 = 4 points. */
const DAG = ['sweep', '--sessions', '17', '--strategy', 'dag', '--grid', 'freshTailCount=8,32', '--grid', 'leafChunkTokens=10000,20000', '--replay', '--summarizer', 'extractive'];
const ROOTS = 20;

interface SweepJson {
  sweepId: number;
  sessions: number[];
  ran: number;
  reused: number;
  summarizerCalls: number;
  rows: SweepRow[];
}
/**
 * A row without the ids a database assigns (variant, run): what must agree across databases.
 * Also without a replay's summarizerCalls: the calls a run made depend on what the summary
 * cache already held (in one database the dag point before it had summarized the same leaves;
 * a shard never saw the other shard's points), the summaries and every other figure do not.
 */
const idless = (rows: readonly SweepRow[]) =>
  rows.map(({ variantId: _v, runId: _r, replay, ...rest }) => {
    if (replay === null) return { ...rest, replay };
    const { summarizerCalls: _c, ...figures } = replay;
    return { ...rest, replay: figures };
  });

beforeAll(() => {
  tmp = tempDir('cs-sweep-');
  const base = openDatabase(file('base.db'));
  importFiles(base, fixtureFiles());
  base.close();
  for (const n of ['full', 'shard1', 'shard2', 'merged']) fs.copyFileSync(file('base.db'), file(`${n}.db`));
}, 120_000);
afterAll(() => tmp.cleanup());

describe('sweep over every fixture root session', { timeout: 300_000 }, () => {
  let first: SweepJson;
  let dag: SweepJson;

  it('runs 9 window points × 20 root sessions = 180 rows in sweep order, one variant and pass each', async () => {
    const r = await cli('full.db', [...WINDOW, '--json']);
    expect(r.code).toBe(0);
    first = JSON.parse(r.stdout) as SweepJson;
    expect(first.sessions).toHaveLength(ROOTS);
    expect(first.rows).toHaveLength(9 * ROOTS);
    expect([first.ran, first.reused, first.summarizerCalls]).toEqual([180, 0, 0]);
    // Session-major, then keepFirst slowest, maxTurns fastest.
    expect(first.rows.slice(0, 4).map((x) => [x.sessionId, x.params.keepFirst, x.params.maxTurns])).toEqual([
      [1, 0, 5],
      [1, 0, 10],
      [1, 0, 20],
      [1, 1, 5],
    ]);
    expect(first.rows.map((x) => x.index)).toEqual([...Array(180).keys()]);
    expect(new Set(first.rows.map((x) => x.variantId)).size).toBe(180);
    for (const row of first.rows) {
      expect(row.replay).toBeNull();
      expect(row.pass).not.toBeNull();
      // window writes no summary: its pass carries the ledger of the turns its state drops
      // (electron/engine/summary-ledger.ts modelFreePassLedger), so a row has a retention
      // exactly when the pass dropped something.
      expect(row.retention === null).toBe(row.pass!.tokensAfter === row.pass!.tokensBefore);
    }
    // Spotter (306 turns, 140,001 tokens) at the defaults keepFirst=1 maxTurns=10: 294 turns dropped, 735 tokens left
    // (the last 10 grow to 11 to keep a tool call with its result), as `compact 17 --strategy window` says.
    const spotter = first.rows.find((x) => x.sessionId === 17 && x.params.keepFirst === 1 && x.params.maxTurns === 10)!;
    expect(spotter.pass).toEqual({ tokensBefore: 140001, tokensAfter: 735, summaries: 0, summarizerCalls: 0, summarizerCostUsd: 0 });
    // Its ledger: 15 of the 141 facts of the dropped turns 1-294 survive (pinned in firing-ledger.test.ts).
    const kept = FACT_CATEGORIES.reduce((n, c) => n + spotter.retention![c].kept, 0);
    const total = FACT_CATEGORIES.reduce((n, c) => n + spotter.retention![c].total, 0);
    expect([kept, total]).toEqual([15, 141]);
    // Progress on stderr: one line per pair.
    expect(r.stderr.match(/^sweep: point \d+ of 180: session \d+ keepFirst=\d maxTurns=\d+$/gm)).toHaveLength(180);
  });

  it('a dag replay grid on spotter: 4 rows with replay totals and retention per category', async () => {
    const r = await cli('full.db', [...DAG, '--json']);
    expect(r.code).toBe(0);
    dag = JSON.parse(r.stdout) as SweepJson;
    expect(dag.rows).toHaveLength(4);
    expect([dag.ran, dag.reused]).toEqual([4, 0]);
    expect(dag.summarizerCalls).toBe(dag.rows.reduce((n, x) => n + x.replay!.summarizerCalls, 0));
    expect(dag.summarizerCalls).toBeGreaterThan(0);
    for (const row of dag.rows) {
      expect(row.status).toBe('completed');
      // spotter has 152 model calls (test/node/compare.test.ts).
      expect(row.replay!.modelCalls).toBe(152);
      expect(row.replay!.firings).toBeGreaterThan(0);
      expect(Object.keys(row.retention!)).toEqual([...FACT_CATEGORIES]);
      const kept = FACT_CATEGORIES.reduce((n, c) => n + row.retention![c].kept, 0);
      const total = FACT_CATEGORIES.reduce((n, c) => n + row.retention![c].total, 0);
      expect(row.retentionPct).toBe(Math.round((kept / total) * 10000) / 100);
    }
  });

  it('is resumable: a second run runs nothing, makes 0 summarizer calls and reports the same rows', async () => {
    const db = openDatabase(file('full.db'));
    const runsBefore = count(db, 'runs');
    const cacheBefore = count(db, 'summary_cache');
    db.close();
    const again = JSON.parse((await cli('full.db', [...WINDOW, '--json'])).stdout) as SweepJson;
    const dagAgain = JSON.parse((await cli('full.db', [...DAG, '--json'])).stdout) as SweepJson;
    expect([again.ran, again.reused, again.summarizerCalls]).toEqual([0, 180, 0]);
    expect([dagAgain.ran, dagAgain.reused, dagAgain.summarizerCalls]).toEqual([0, 4, 0]);
    expect(again.sweepId).toBe(first.sweepId);
    expect(again.rows).toEqual(first.rows);
    expect(dagAgain.rows).toEqual(dag.rows);
    const after = openDatabase(file('full.db'));
    expect([count(after, 'runs'), count(after, 'summary_cache'), count(after, 'sweeps'), count(after, 'sweep_points')]).toEqual([runsBefore, cacheBefore, 2, 184]);
    after.close();
  });

  it('--shard 1/2 and 2/2 into copies of the base, merged, equal the unsharded sweep row for row', async () => {
    const s1 = JSON.parse((await cli('shard1.db', [...WINDOW, '--shard', '1/2', '--json'])).stdout) as SweepJson;
    const s2 = JSON.parse((await cli('shard2.db', [...WINDOW, '--shard', '2/2', '--json'])).stdout) as SweepJson;
    // Every other pair: 90 each, even indices in shard 1.
    expect([s1.rows.length, s2.rows.length]).toEqual([90, 90]);
    expect(s1.rows.every((x) => x.index % 2 === 0) && s2.rows.every((x) => x.index % 2 === 1)).toBe(true);
    expect((await cli('shard1.db', [...DAG, '--shard', '1/2', '--json'])).code).toBe(0);
    expect((await cli('shard2.db', [...DAG, '--shard', '2/2', '--json'])).code).toBe(0);

    const merged = await cli('merged.db', ['merge', file('shard1.db'), file('shard2.db'), '--json']);
    expect(merged.code).toBe(0);
    const report = JSON.parse(merged.stdout) as { sources: Array<{ tables: Record<string, { added: number; existing: number }> }> };
    // The second shard's sweeps are the first's (same definition): its points join them.
    expect(report.sources[1].tables.sweeps).toEqual({ added: 0, existing: 2 });
    expect(report.sources.map((s) => s.tables.sweep_points.added)).toEqual([92, 92]);

    const out = openDatabase(file('merged.db'));
    const full = openDatabase(file('full.db'), { readonly: true });
    try {
      const sweepsOut = listSweeps(out);
      const sweepsFull = listSweeps(full);
      expect(sweepsOut.map((s) => [s.strategy, s.kind, s.points])).toEqual(sweepsFull.map((s) => [s.strategy, s.kind, s.points]));
      for (const [i, s] of sweepsOut.entries()) {
        const a = getSweepDetail(out, s.id)!;
        const b = getSweepDetail(full, sweepsFull[i].id)!;
        expect(a.sweep.sessionIds).toEqual(b.sweep.sessionIds);
        expect(a.rows).toHaveLength(b.rows.length);
        expect(idless(a.rows)).toEqual(idless(b.rows));
        // Each point names a variant of its own session and a run of that variant.
        for (const row of a.rows) expect(out.prepare('SELECT v.session_id FROM runs r JOIN variants v ON v.id = r.variant_id WHERE r.id = ? AND v.id = ?').get(row.runId, row.variantId)).toEqual({ session_id: row.sessionId });
      }
      // Merging a shard again adds nothing.
      const again = await cli('merged.db', ['merge', file('shard1.db'), '--json']);
      const tables = (JSON.parse(again.stdout) as { sources: Array<{ tables: Record<string, { added: number }> }> }).sources[0].tables;
      expect(Object.values(tables).reduce((n, c) => n + c.added, 0)).toBe(0);
    } finally {
      out.close();
      full.close();
    }
  });

  it('prints CSV: the header, then one line per row', async () => {
    const r = await cli('full.db', [...WINDOW, '--csv']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 180);
    expect(lines[0]).toBe(
      'session,keepFirst,maxTurns,variant_id,run_id,status,tokens_before,tokens_after,summaries,summarizer_calls,summarizer_cost_usd,' +
        'request_kept,request_total,request_pct,todo_kept,todo_total,todo_pct,path_kept,path_total,path_pct,command_kept,command_total,command_pct,' +
        'error_kept,error_total,error_pct,identifier_kept,identifier_total,identifier_pct,number_kept,number_total,number_pct,retention_pct,' +
        'text_kept,text_total,text_retention_pct',
    );
    expect(lines[0].split(',')).toEqual(sweepCsvHeader(['keepFirst', 'maxTurns'], 'pass'));
    const spotter = first.rows.find((x) => x.sessionId === 17 && x.params.keepFirst === 1 && x.params.maxTurns === 10)!;
    const spotterLine = lines.find((l) => l.startsWith(`17,1,10,${spotter.variantId},${spotter.runId},`))!.split(',');
    expect(spotterLine.slice(5, 11)).toEqual(['completed', '140001', '735', '0', '0', '0']);
    // Its ledger's cells, kept and total per category: request 0/0, todo 0/0, path 1/43, command 4/54, error 0/5, identifier 9/32, number 1/7; then 15 of 141 in all.
    const perCategory = spotterLine.slice(11, 32);
    expect([0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19].map((i) => perCategory[i])).toEqual(['0', '0', '0', '0', '1', '43', '4', '54', '0', '5', '9', '32', '1', '7']);
    expect(Number(spotterLine[32])).toBe(spotter.retentionPct);
    expect(spotter.retentionPct).toBe(Math.round((15 / 141) * 10000) / 100);
    const dagCsv = (await cli('full.db', [...DAG, '--csv'])).stdout.trimEnd().split('\n');
    const row = dag.rows[0];
    const cells = dagCsv[1].split(',');
    expect(cells.slice(0, 6)).toEqual(['17', '8', '10000', String(row.variantId), String(row.runId), 'completed']);
    expect(Number(cells[cells.length - 4])).toBe(row.retentionPct);
    // The text-level score of the same ledgers beside it.
    expect(row.textRetention).not.toBeNull();
    expect(cells.slice(-3).map(Number)).toEqual([row.textRetention!.kept, row.textRetention!.total, row.textRetentionPct]);
    expect(row.textRetentionPct!).toBeLessThan(100);
  });

  it('refuses a parameter the strategy lacks and a shard out of range, before anything runs', async () => {
    const bad = await cli('full.db', ['sweep', '--strategy', 'window', '--grid', 'freshTailCount=1,2']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/strategy window has no such parameter/);
    const shard = await cli('full.db', [...WINDOW, '--shard', '3/2']);
    expect(shard.code).toBe(2);
    expect(shard.stderr).toMatch(/--shard 3\/2: I must be between 1 and N/);
  });

  it('deleting a variant takes its sweep point with it', () => {
    const db = openDatabase(file('full.db'));
    try {
      const before = count(db, 'sweep_points');
      expect(deleteVariant(db, first.rows[0].variantId)).toBe(true);
      expect(count(db, 'sweep_points')).toBe(before - 1);
    } finally {
      db.close();
    }
  });
});

describe('the sweep order and shards (pure)', () => {
  it('is the cartesian product, last axis fastest, crossed session-major; shards partition it', () => {
    const points = gridPoints(parseGrid(['a=1,2', 'b=10,20,30']));
    expect(points).toEqual([
      { a: 1, b: 10 },
      { a: 1, b: 20 },
      { a: 1, b: 30 },
      { a: 2, b: 10 },
      { a: 2, b: 20 },
      { a: 2, b: 30 },
    ]);
    const pairs = sweepPairs([4, 9], points);
    const shards = [1, 2, 3].map((i) => shardPairs(pairs, { index: i, count: 3 }).map((p) => p.index));
    expect(shards).toEqual([
      [0, 3, 6, 9],
      [1, 4, 7, 10],
      [2, 5, 8, 11],
    ]);
  });
});

describe('the Pareto front of cost against retention', () => {
  it('keeps the points nothing beats on both, cheapest first', () => {
    const points = [
      { cost: 10, retention: 50 }, // 0: front (cheapest)
      { cost: 12, retention: 40 }, // 1: beaten by 0
      { cost: 15, retention: 70 }, // 2: front
      { cost: 15, retention: 60 }, // 3: beaten by 2 (same cost, less kept)
      { cost: 20, retention: 70 }, // 4: beaten by 2 (same kept, dearer)
      { cost: 30, retention: 90 }, // 5: front
      { cost: 30, retention: 90 }, // 6: equal to 5: neither beats the other
      { cost: 8, retention: 20 }, // 7: front (cheapest of all)
    ];
    expect(paretoFront(points)).toEqual([7, 0, 2, 5, 6]);
    expect(paretoFront([])).toEqual([]);
  });
});

describe('the sweep chart (pure)', () => {
  const row = (sessionId: number, a: number, cost: number, kept: number | null, total = 10): SweepRow => ({
    index: 0,
    sessionId,
    params: { a },
    variantId: 1,
    runId: 1,
    status: 'completed',
    replay: { modelCalls: 1, inputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: cost, summarizerCostUsd: 0, peakContext: 1, firings: 1, summarizerCalls: 0 },
    pass: null,
    ...retentionCells(kept === null ? null : { ...Object.fromEntries(FACT_CATEGORIES.map((c) => [c, { kept: 0, total: 0 }])), path: { kept, total } } as never),
    textRetention: null,
    textRetentionPct: null,
  });

  it('one point per parameter point, summed over sessions (a session without a ledger adds cost, no fact), sorted by cost, front marked', () => {
    const rows = [row(1, 1, 2, 5), row(2, 1, 1, null), row(1, 2, 1, 2), row(2, 2, 1, 2), row(1, 3, 9, 3), row(2, 3, 9, null)];
    const chart = sweepChart(rows, null);
    // a=2: cost 2, 4/20 kept = 20%; a=1: cost 3, 5/10 = 50%; a=3: cost 18, 3/10 = 30% (beaten by a=1).
    expect(chart.points.map((p) => [p.label, p.cost, p.retentionPct, p.onFront])).toEqual([
      ['a=2', 2, 20, true],
      ['a=1', 3, 50, true],
      ['a=3', 18, 30, false],
    ]);
    expect(chart.front).toEqual([0, 1]);
    // One session: its rows only; a point with no fact at stake is left off.
    const one = sweepChart(rows, 2);
    expect([one.points.map((p) => p.label), one.unplotted]).toEqual([['a=2'], 2]);
  });
});
