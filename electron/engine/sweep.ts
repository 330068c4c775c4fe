/**
 * A sweep (docs/sweeps.md): one strategy's grid of parameter points crossed with sessions, each
 * (session, point) pair run as a replay or a pass through the very engine `replay` and
 * `compact` use, and recorded as a `sweep_points` row (electron/store/sweeps.ts).
 *
 * Resumable: a pair whose variant already has a finished run of the sweep's kind
 * (`latestFinishedRun`) is not run again, its latest run is reported; the variants and the
 * summary cache make a re-run of a whole sweep cost no summarizer call. Sharded: `shard i/n`
 * takes every n-th pair of the deterministic order (shared/sweep/grid.ts), into whatever
 * database it is given; `merge` unions the shard databases into one sweep.
 *
 * On every core: with `jobs` > 1 and a `runPair` that runs a pair elsewhere (the CLI's worker
 * threads, electron/services/sweep-pool.ts, each with its own connection to the same WAL
 * database), up to `jobs` pairs run at once. The order stays the sweep's: pairs are taken,
 * checked for reuse and announced (`onPair`) in order, and each finished pair is recorded
 * here, on this connection, as it finishes. The rows are read back in pair order at the end,
 * so they are those of a one-by-one sweep, but for the ids a database assigns and a replay's
 * `summarizerCalls` (which depends on which point filled the summary cache first).
 *
 * Sessions: `'all'` = the root sessions (a subagent's session is a child session, swept only
 * when named by id), in id order.
 */
import { writeTransaction, type DB } from '../store/db.js';
import { listSessions, getSession } from '../store/sessions.js';
import { getOrCreateSweep, getSweepDetail, latestFinishedRun, recordSweepPoint } from '../store/sweeps.js';
import { EngineError, findVariantFor, prepare, runCompaction } from './engine.js';
import { runReplay } from './replay.js';
import { summarizerIdentity, type SummarizerSetup } from '../summarize/index.js';
import { STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import { gridPoints, shardPairs, sweepPairs, type SweepPair } from '../../shared/sweep/grid.js';
import type { RunStatus } from '../../shared/contract.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import type { SweepAxis, SweepInfo, SweepKind, SweepRow } from '../../shared/sweep/types.js';

export interface RunSweepOptions {
  sessions: 'all' | number[];
  strategy: StrategyName;
  grid: SweepAxis[];
  /** Parameters every point shares (`--set`, already fitted to the specs). */
  fixedParams?: Record<string, number>;
  kind: SweepKind;
  summarizer?: SummarizerSetup;
  concurrency?: number;
  /** Passes only: run even where the strategy's trigger says no (a skipped pass is then not reused). */
  force?: boolean;
  /** 1-based shard of `count`. */
  shard?: { index: number; count: number };
  signal?: AbortSignal;
  /** Before each pair: k of n (within this shard), the pair, and whether its run is reused. */
  onPair?(p: { k: number; n: number; pair: SweepPair; reused: boolean }): void;
  /** Pairs run at once (default 1: one after another, in this thread). */
  jobs?: number;
  /** Runs one pair (default: `runSweepPair` on this connection); the CLI's runs it in a worker thread. */
  runPair?: RunSweepPair;
}

/** One (session, point) pair to run: everything a worker needs, plain data. */
export interface SweepPairJob {
  sessionId: number;
  strategy: StrategyName;
  params: Record<string, number>;
  kind: SweepKind;
  summarizer?: SummarizerSetup;
  concurrency?: number;
  force?: boolean;
}

export interface SweepPairOutcome {
  variantId: number;
  runId: number;
  status: Exclude<RunStatus, 'running'>;
}

export type RunSweepPair = (job: SweepPairJob, signal?: AbortSignal) => Promise<SweepPairOutcome>;

/** Runs one pair as a replay or a pass through the engine, on `db`. */
export async function runSweepPair(db: DB, job: SweepPairJob, signal?: AbortSignal): Promise<SweepPairOutcome> {
  const common = { sessionId: job.sessionId, strategy: job.strategy, params: job.params, summarizer: job.summarizer, concurrency: job.concurrency, signal };
  const r = job.kind === 'replay' ? await runReplay(db, common) : await runCompaction(db, { ...common, force: job.force });
  return { variantId: r.variantId, runId: r.runId, status: r.status as SweepPairOutcome['status'] };
}

export interface RunSweepResult {
  sweep: SweepInfo;
  /** The rows of the pairs this call covered (its shard's share), in sweep order. */
  rows: SweepRow[];
  /** Pairs run now, pairs whose earlier run was reported. */
  ran: number;
  reused: number;
  /** Summarizer calls the runs made now (0 on a re-run of an unchanged sweep). */
  summarizerCalls: number;
  /** Pairs whose run failed (recorded with their failed run; a re-run tries them again). */
  failed: number;
}

/** The sessions of a sweep, checked: every id exists. */
export function sweepSessions(db: DB, sessions: 'all' | number[]): number[] {
  if (sessions === 'all') return listSessions(db).filter((s) => s.parentSessionId === null).map((s) => s.id);
  for (const id of sessions) if (!getSession(db, id)) throw new EngineError('not_found', `session ${id} not found`);
  return [...sessions];
}

/** Refuses a grid or fixed parameter the strategy does not have, a parameter in both, and any point out of range, before anything runs. */
function checkPoints(strategy: StrategyName, grid: readonly SweepAxis[], fixed: Record<string, number>, points: ReadonlyArray<Record<string, number>>): void {
  const known = STRATEGY_DEFINITIONS[strategy].specs.map((s) => s.name);
  for (const a of grid) {
    if (!known.includes(a.name)) throw new EngineError('bad_params', `--grid ${a.name}: strategy ${strategy} has no such parameter (known: ${known.join(', ')})`);
    if (Object.hasOwn(fixed, a.name)) throw new EngineError('bad_params', `${a.name} is both in --grid and --set`);
  }
  for (const p of points) prepare(strategy, { ...fixed, ...p });
}

/** The sweep of these options (created on first use) and the pairs this call covers, every point checked first. */
export function planSweep(db: DB, o: Pick<RunSweepOptions, 'sessions' | 'strategy' | 'grid' | 'fixedParams' | 'kind' | 'summarizer' | 'shard'>): { sweep: SweepInfo; pairs: SweepPair[] } {
  const fixed = o.fixedParams ?? {};
  const sessionIds = sweepSessions(db, o.sessions);
  const points = gridPoints(o.grid);
  checkPoints(o.strategy, o.grid, fixed, points);
  const sweep = writeTransaction(db, () => getOrCreateSweep(db, { strategy: o.strategy, grid: o.grid, fixedParams: fixed, summarizer: summarizerIdentity(o.summarizer), sessionIds, kind: o.kind }));
  const all = sweepPairs(sessionIds, points);
  return { sweep, pairs: o.shard ? shardPairs(all, o.shard) : all };
}

/** The stored rows of a sweep's pairs, in sweep order. */
export function sweepRows(db: DB, sweepId: number, pairs: readonly SweepPair[]): { sweep: SweepInfo; rows: SweepRow[] } {
  const detail = getSweepDetail(db, sweepId)!;
  const mine = new Set(pairs.map((p) => p.index));
  return { sweep: detail.sweep, rows: detail.rows.filter((r) => mine.has(r.index)) };
}

export async function runSweep(db: DB, o: RunSweepOptions): Promise<RunSweepResult> {
  const fixed = o.fixedParams ?? {};
  const { sweep, pairs } = planSweep(db, o);
  const runPair: RunSweepPair = o.runPair ?? ((job, signal) => runSweepPair(db, job, signal));
  const jobs = Math.max(1, o.jobs ?? 1);
  let ran = 0;
  let reused = 0;
  let failed = 0;
  let stopped = false;
  let error: unknown = null;
  const ranPairs = new Set<number>();
  const inFlight = new Set<Promise<void>>();
  const record = (pair: SweepPair, ids: { variantId: number; runId: number }) =>
    writeTransaction(db, () => recordSweepPoint(db, { sweepId: sweep.id, pairIndex: pair.index, sessionId: pair.sessionId, variantId: ids.variantId, runId: ids.runId, params: pair.params }));
  for (const [i, pair] of pairs.entries()) {
    // A free slot first: with jobs = 1 this awaits the pair before, so the loop is the one-by-one sweep.
    while (inFlight.size >= jobs) await Promise.race(inFlight);
    if (stopped || o.signal?.aborted) break;
    const params = { ...fixed, ...pair.params };
    const variant = findVariantFor(db, { sessionId: pair.sessionId, strategy: o.strategy, params, summarizer: o.summarizer });
    const done = variant ? latestFinishedRun(db, variant.id, o.kind, o.force === true) : null;
    o.onPair?.({ k: i + 1, n: pairs.length, pair, reused: done !== null });
    if (variant && done !== null) {
      reused++;
      record(pair, { variantId: variant.id, runId: done });
      continue;
    }
    const job: SweepPairJob = { sessionId: pair.sessionId, strategy: o.strategy, params, kind: o.kind, summarizer: o.summarizer, concurrency: o.concurrency, force: o.force };
    const running: Promise<void> = runPair(job, o.signal)
      .then((r) => {
        // A cancelled pair is not a point: the next run of the sweep runs it again.
        if (r.status === 'cancelled') {
          stopped = true;
          return;
        }
        ran++;
        if (r.status === 'failed') failed++;
        ranPairs.add(pair.index);
        record(pair, r);
      })
      .catch((e: unknown) => {
        stopped = true;
        error ??= e;
      })
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
  }
  await Promise.all(inFlight);
  if (error !== null) throw error;
  const { sweep: info, rows } = sweepRows(db, sweep.id, pairs);
  // What the runs made now cost in summarizer calls: read back from their stats.
  const summarizerCalls = rows.filter((r) => ranPairs.has(r.index)).reduce((n, r) => n + (r.replay?.summarizerCalls ?? r.pass?.summarizerCalls ?? 0), 0);
  return { sweep: info, rows, ran, reused, summarizerCalls, failed };
}
