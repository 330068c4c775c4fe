/**
 * `sweep --sessions all|1,2,3 --strategy S --grid key=v1,v2 [--grid …] [--set k=v …] [--replay]
 * [--summarizer …] [--shard i/n] --json|--csv`: every (session, parameter point) of a grid run
 * through the engine (electron/engine/sweep.ts) and reported one row per pair. Progress on
 * stderr. Resumable (a pair already run is read back, not run again); shardable (`merge` the
 * shard databases afterwards; docs/sweeps.md). `--jobs N` (default: the machine's cores) runs
 * N pairs at once in worker threads (electron/services/sweep-pool.ts); `--slurm` submits the
 * sweep as a Slurm job array and a dependent merge job (../slurm.ts).
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { planSweep, runSweep, sweepRows, type RunSweepResult } from '../../engine/sweep.js';
import { createSweepPool, type SweepPool } from '../../services/sweep-pool.js';
import { defaultWorkerScript } from '../../services/studio-service.js';
import { cliCommand, prepareSlurmSweep, shardReport, SlurmError, submitSlurmSweep } from '../slurm.js';
import { parseGrid, parseShard, pointLabel, SweepArgError } from '../../../shared/sweep/grid.js';
import { sweepCsv } from '../../../shared/sweep/table.js';
import { CliError, intOption, stringOption, UsageError, formatTable, type CliCommand, type CommandContext } from '../framework.js';
import { asCliError, clampedParamsArg, concurrencyArg, strategyArg, STRATEGY_OPTIONS, SUMMARIZER_OPTIONS, summarizerArg } from './engine-args.js';
import type { SweepRow } from '../../../shared/sweep/types.js';

function sessionsArg(text: string | undefined): 'all' | number[] {
  if (text === undefined || text === 'all') return 'all';
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1)) throw new UsageError(`--sessions expects all or session ids like 1,2,3, got "${text}"`);
  const ids = parts.map(Number);
  if (new Set(ids).size !== ids.length) throw new UsageError(`--sessions: a session is listed twice in "${text}"`);
  return ids;
}

const list = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

/** The sweep's own arguments as given (for the Slurm tasks), the sessions resolved to ids. */
function forwardedArgs(ctx: CommandContext, sessionIds: readonly number[]): string[] {
  const o = ctx.options;
  const str = (name: string) => (typeof o[name] === 'string' ? [`--${name}`, o[name] as string] : []);
  return [
    '--strategy',
    String(o.strategy),
    '--sessions',
    sessionIds.join(','),
    ...list(o.grid).flatMap((g) => ['--grid', g]),
    ...list(o.set).flatMap((v) => ['--set', v]),
    ...(o.replay === true ? ['--replay'] : []),
    ...(o.force === true ? ['--force'] : []),
    ...str('summarizer'),
    ...str('base-url'),
    ...str('model'),
    ...str('concurrency'),
  ];
}

/** The Slurm tasks' JSON reports summed (ran, reused, summarizer calls); a missing one counts nothing. */
function shardTotals(dir: string, shards: number): { ran: number; reused: number; summarizerCalls: number } {
  const t = { ran: 0, reused: 0, summarizerCalls: 0 };
  for (let i = 1; i <= shards; i++) {
    try {
      const r = JSON.parse(fs.readFileSync(shardReport(dir, i), 'utf8')) as typeof t;
      t.ran += r.ran;
      t.reused += r.reused;
      t.summarizerCalls += r.summarizerCalls;
    } catch {
      // The task did not finish: its pairs show as missing rows.
    }
  }
  return t;
}

const pct = (v: number | null) => (v === null ? '-' : `${v.toFixed(1)}%`);

export const command: CliCommand = {
  name: 'sweep',
  summary: 'Run a grid of parameter points over sessions (replays or passes) and report one row per (session, point)',
  usage: 'sweep --strategy S --grid KEY=V1,V2,... [--grid ...] [--sessions all|1,2,3] [--set KEY=VALUE ...] [--replay] [--summarizer extractive|openai] [--base-url U] [--model M] [--force] [--shard I/N] [--jobs N] [--slurm --shards N [--partition P] [--slurm-dir DIR] [--no-wait]] [--db PATH] [--json|--csv]',
  description:
    "The points are the cartesian product of the --grid axes (the first varies slowest), crossed with the sessions (session-major). --sessions all (the default) takes the root sessions: a subagent's transcript is a child session, swept only when named by id. Each pair runs as a replay (--replay: call by call, priced with prompt caching) or one pass, through the same engine as `replay` and `compact`, and is stored as a point of the sweep so the window can chart it. A pair whose variant already has a finished run of that kind is not run again (its latest run is reported), so an interrupted sweep resumes and a repeated one makes no summarizer call. --shard I/N runs every N-th pair starting at the I-th into the --db given: copy the base database per shard, run the shards anywhere, then `merge` them (docs/sweeps.md). --jobs N (default: the machine's cores) runs N pairs at once, each in a worker thread with its own connection to the database; the rows are those of --jobs 1. --slurm submits the sweep to Slurm: a job array of --shards N tasks (each --shard I/N into its own copy of the --db, in --slurm-dir, default <db>.slurm/) and a merge job after it (afterok) that merges the shards into the --db; it waits for the merge (sbatch --wait) and reports the rows, or with --no-wait prints the job ids and how to read the rows once they are done. Rows: session, the point's parameters, variant, run, the replay totals (model calls, input, cache read/write, cost, summarizer cost, peak context, firings, summarizer calls) or the pass's figures (tokens before/after, summaries, summarizer calls), and retention per fact category (kept/total, %).",
  options: {
    ...STRATEGY_OPTIONS,
    ...SUMMARIZER_OPTIONS,
    sessions: { type: 'string', valueName: 'all|1,2,3', description: 'the sessions: all root sessions (default) or ids' },
    grid: { type: 'string', multiple: true, valueName: 'KEY=V1,V2,...', description: 'a parameter and its values; several --grid make a cartesian product' },
    replay: { type: 'boolean', description: 'replay each pair call by call (costs, firings) instead of one pass' },
    concurrency: { type: 'string', valueName: 'N', description: 'summarizer calls in flight at once (default 4)' },
    force: { type: 'boolean', description: "passes: run even where the strategy's trigger says no" },
    shard: { type: 'string', valueName: 'I/N', description: 'run every N-th pair starting at the I-th (1-based) only' },
    jobs: { type: 'string', valueName: 'N', description: "pairs run at once, each in a worker thread (default: the machine's cores)" },
    slurm: { type: 'boolean', description: 'submit the sweep to Slurm as a job array and a dependent merge job' },
    shards: { type: 'string', valueName: 'N', description: '--slurm: array tasks, one shard each (default 2)' },
    partition: { type: 'string', valueName: 'P', description: '--slurm: the partition to submit to' },
    'slurm-dir': { type: 'string', valueName: 'DIR', description: '--slurm: the scripts, shard databases and logs (default <db>.slurm)' },
    'no-wait': { type: 'boolean', description: '--slurm: submit and return; print the job ids and how to read the rows' },
    csv: { type: 'boolean', description: 'print the rows as CSV' },
  },
  maxPositionals: 0,
  async run(ctx) {
    if (ctx.jsonMode && ctx.options.csv === true) throw new UsageError('--json and --csv: choose one');
    const strategy = strategyArg(ctx);
    const rawGrid = ctx.options.grid;
    let grid;
    let shard;
    try {
      grid = parseGrid(rawGrid === undefined ? [] : Array.isArray(rawGrid) ? rawGrid : [String(rawGrid)]);
      const s = stringOption(ctx, 'shard');
      shard = s === undefined ? undefined : parseShard(s);
    } catch (e) {
      if (e instanceof SweepArgError) throw new UsageError(e.message);
      throw e;
    }
    const sessions = sessionsArg(stringOption(ctx, 'sessions'));
    const { params: fixed } = clampedParamsArg(ctx, strategy);
    const kind = ctx.options.replay === true ? 'replay' : 'pass';
    if (kind === 'replay' && ctx.options.force === true) throw new UsageError('--force applies to passes (a replay fires where the trigger says)');
    const jobs = intOption(ctx, 'jobs', os.availableParallelism());
    if (jobs < 1 || jobs > 256) throw new UsageError(`--jobs must be between 1 and 256, got ${jobs}`);
    const slurm = ctx.options.slurm === true;
    if (!slurm) for (const name of ['shards', 'partition', 'slurm-dir', 'no-wait']) if (ctx.options[name] !== undefined) throw new UsageError(`--${name} applies to --slurm`);
    if (slurm && shard) throw new UsageError('--slurm makes its own shards: leave out --shard');
    const db = ctx.openDb();
    const summarizer = summarizerArg(ctx);
    const concurrency = concurrencyArg(ctx);
    let result: RunSweepResult;
    let pool: SweepPool | null = null;
    try {
      if (slurm) {
        const shards = intOption(ctx, 'shards', 2);
        if (shards < 1 || shards > 10_000) throw new UsageError(`--shards must be between 1 and 10000, got ${shards}`);
        if (db.memory) throw new UsageError('--slurm needs a database file (--db PATH)');
        const planned = planSweep(db, { sessions, strategy, grid, fixedParams: fixed as Record<string, number>, kind, summarizer });
        const dir = path.resolve(ctx.cwd, stringOption(ctx, 'slurm-dir') ?? `${ctx.dbPath}.slurm`);
        const scripts = await prepareSlurmSweep(db, {
          dir,
          baseDb: path.resolve(ctx.cwd, ctx.dbPath),
          shards,
          jobsPerTask: ctx.options.jobs === undefined ? 1 : jobs,
          partition: stringOption(ctx, 'partition'),
          jobName: `sweep-${strategy}`,
          sweepArgs: forwardedArgs(ctx, planned.sweep.sessionIds),
          cli: cliCommand(),
        });
        const wait = ctx.options['no-wait'] !== true;
        ctx.err(`sweep ${planned.sweep.id}: ${planned.pairs.length} pairs in ${shards} Slurm array tasks; scripts in ${dir}`);
        const submitted = await submitSlurmSweep(scripts, { wait, env: { ...process.env, ...ctx.env }, signal: ctx.signal });
        if (!wait) {
          ctx.err(`sweep: submitted job array ${submitted.arrayJob} and merge job ${submitted.mergeJob} (after it); follow them with: squeue -j ${submitted.arrayJob},${submitted.mergeJob}`);
          ctx.err(`sweep: once the merge job has ended, run this command again without --slurm (and --jobs 1) to read the rows: every pair is there, nothing runs`);
          if (ctx.jsonMode) ctx.json({ sweepId: planned.sweep.id, slurm: { arrayJob: submitted.arrayJob, mergeJob: submitted.mergeJob, dir, shards } });
          return 0;
        }
        const { sweep, rows } = sweepRows(db, planned.sweep.id, planned.pairs);
        const totals = shardTotals(dir, shards);
        ctx.err(`sweep: Slurm job array ${submitted.arrayJob} and its merge have ended`);
        result = { sweep, rows, ...totals, failed: rows.filter((r) => r.status === 'failed').length };
      } else {
        const useWorkers = jobs > 1 && !db.memory;
        pool = useWorkers ? createSweepPool({ dbPath: ctx.dbPath, workerScript: defaultWorkerScript(), size: jobs }) : null;
        result = await runSweep(db, {
          sessions,
          strategy,
          grid,
          fixedParams: fixed as Record<string, number>,
          kind,
          summarizer,
          concurrency,
          force: ctx.options.force === true,
          ...(shard ? { shard } : {}),
          signal: ctx.signal,
          ...(pool ? { jobs, runPair: pool.runPair } : {}),
          onPair: ({ k, n, pair, reused }) => ctx.err(`sweep: point ${k} of ${n}: session ${pair.sessionId} ${pointLabel(pair.params)}${reused ? ' (done before: reused)' : ''}`),
        });
      }
    } catch (e) {
      if (e instanceof SlurmError) throw new CliError(e.message, 'internal', 1);
      throw asCliError(e);
    } finally {
      await pool?.close();
    }
    if (ctx.signal.aborted) throw new CliError(`sweep ${result.sweep.id} cancelled after ${result.ran + result.reused} pairs: run it again to resume`, 'cancelled', 130);
    ctx.err(`sweep ${result.sweep.id}: ${result.rows.length} rows (${result.ran} run now, ${result.reused} reused), ${result.summarizerCalls} summarizer calls made${result.failed > 0 ? `, ${result.failed} failed` : ''}`);
    const names = grid.map((a) => a.name);
    if (ctx.jsonMode) ctx.json({ sweepId: result.sweep.id, strategy, kind, grid, fixedParams: fixed, sessions: result.sweep.sessionIds, ...(shard ? { shard } : {}), ran: result.ran, reused: result.reused, summarizerCalls: result.summarizerCalls, rows: result.rows });
    else if (ctx.options.csv === true) ctx.stdout.write(sweepCsv(names, kind, result.rows));
    else {
      const cols = [
        { header: 'SESSION', value: (r: SweepRow) => r.sessionId },
        ...names.map((n) => ({ header: n, value: (r: SweepRow) => r.params[n] })),
        { header: 'VARIANT', value: (r: SweepRow) => r.variantId },
        { header: 'RUN', value: (r: SweepRow) => r.runId },
        { header: 'STATUS', value: (r: SweepRow) => r.status },
        ...(kind === 'replay'
          ? [
              { header: 'COST', value: (r: SweepRow) => `$${((r.replay?.costUsd ?? 0) + (r.replay?.summarizerCostUsd ?? 0)).toFixed(4)}` },
              { header: 'FIRINGS', value: (r: SweepRow) => r.replay?.firings ?? 0 },
              { header: 'PEAK', value: (r: SweepRow) => r.replay?.peakContext ?? 0 },
            ]
          : [
              { header: 'BEFORE', value: (r: SweepRow) => r.pass?.tokensBefore ?? '-' },
              { header: 'AFTER', value: (r: SweepRow) => r.pass?.tokensAfter ?? '-' },
              { header: 'SUMMARIES', value: (r: SweepRow) => r.pass?.summaries ?? 0 },
            ]),
        { header: 'FACT RET.', value: (r: SweepRow) => pct(r.retentionPct), align: 'right' as const },
        { header: 'TEXT RET.', value: (r: SweepRow) => pct(r.textRetentionPct), align: 'right' as const },
      ];
      for (const line of formatTable(result.rows, cols)) ctx.out(line);
    }
    return result.failed > 0 ? 1 : 0;
  },
};
