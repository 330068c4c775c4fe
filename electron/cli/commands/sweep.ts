/**
 * `sweep --sessions all|1,2,3 --strategy S --grid key=v1,v2 [--grid …] [--set k=v …] [--replay]
 * [--summarizer …] [--shard i/n] --json|--csv`: every (session, parameter point) of a grid run
 * through the engine (electron/engine/sweep.ts) and reported one row per pair. Progress on
 * stderr. Resumable (a pair already run is read back, not run again); shardable (`merge` the
 * shard databases afterwards; docs/sweeps.md).
 */
import { runSweep } from '../../engine/sweep.js';
import { parseGrid, parseShard, pointLabel, SweepArgError } from '../../../shared/sweep/grid.js';
import { sweepCsv } from '../../../shared/sweep/table.js';
import { CliError, stringOption, UsageError, formatTable, type CliCommand } from '../framework.js';
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

const pct = (v: number | null) => (v === null ? '-' : `${v.toFixed(1)}%`);

export const command: CliCommand = {
  name: 'sweep',
  summary: 'Run a grid of parameter points over sessions (replays or passes) and report one row per (session, point)',
  usage: 'sweep --strategy S --grid KEY=V1,V2,... [--grid ...] [--sessions all|1,2,3] [--set KEY=VALUE ...] [--replay] [--summarizer extractive|openai] [--base-url U] [--model M] [--force] [--shard I/N] [--db PATH] [--json|--csv]',
  description:
    "The points are the cartesian product of the --grid axes (the first varies slowest), crossed with the sessions (session-major). --sessions all (the default) takes the root sessions: a subagent's transcript is a child session, swept only when named by id. Each pair runs as a replay (--replay: call by call, priced with prompt caching) or one pass, through the same engine as `replay` and `compact`, and is stored as a point of the sweep so the window can chart it. A pair whose variant already has a finished run of that kind is not run again (its latest run is reported), so an interrupted sweep resumes and a repeated one makes no summarizer call. --shard I/N runs every N-th pair starting at the I-th into the --db given: copy the base database per shard, run the shards anywhere, then `merge` them (docs/sweeps.md). Rows: session, the point's parameters, variant, run, the replay totals (model calls, input, cache read/write, cost, summarizer cost, peak context, firings, summarizer calls) or the pass's figures (tokens before/after, summaries, summarizer calls), and retention per fact category (kept/total, %).",
  options: {
    ...STRATEGY_OPTIONS,
    ...SUMMARIZER_OPTIONS,
    sessions: { type: 'string', valueName: 'all|1,2,3', description: 'the sessions: all root sessions (default) or ids' },
    grid: { type: 'string', multiple: true, valueName: 'KEY=V1,V2,...', description: 'a parameter and its values; several --grid make a cartesian product' },
    replay: { type: 'boolean', description: 'replay each pair call by call (costs, firings) instead of one pass' },
    concurrency: { type: 'string', valueName: 'N', description: 'summarizer calls in flight at once (default 4)' },
    force: { type: 'boolean', description: "passes: run even where the strategy's trigger says no" },
    shard: { type: 'string', valueName: 'I/N', description: 'run every N-th pair starting at the I-th (1-based) only' },
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
    const db = ctx.openDb();
    let result;
    try {
      result = await runSweep(db, {
        sessions,
        strategy,
        grid,
        fixedParams: fixed as Record<string, number>,
        kind,
        summarizer: summarizerArg(ctx),
        concurrency: concurrencyArg(ctx),
        force: ctx.options.force === true,
        ...(shard ? { shard } : {}),
        signal: ctx.signal,
        onPair: ({ k, n, pair, reused }) => ctx.err(`sweep: point ${k} of ${n}: session ${pair.sessionId} ${pointLabel(pair.params)}${reused ? ' (done before: reused)' : ''}`),
      });
    } catch (e) {
      throw asCliError(e);
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
