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

export async function runSweep(db: DB, o: RunSweepOptions): Promise<RunSweepResult> {
  const fixed = o.fixedParams ?? {};
  const sessionIds = sweepSessions(db, o.sessions);
  const points = gridPoints(o.grid);
  checkPoints(o.strategy, o.grid, fixed, points);
  const sweep = writeTransaction(db, () => getOrCreateSweep(db, { strategy: o.strategy, grid: o.grid, fixedParams: fixed, summarizer: summarizerIdentity(o.summarizer), sessionIds, kind: o.kind }));
  const all = sweepPairs(sessionIds, points);
  const pairs = o.shard ? shardPairs(all, o.shard) : all;
  let ran = 0;
  let reused = 0;
  let failed = 0;
  const ranPairs = new Set<number>();
  for (const [i, pair] of pairs.entries()) {
    if (o.signal?.aborted) break;
    const params = { ...fixed, ...pair.params };
    const variant = findVariantFor(db, { sessionId: pair.sessionId, strategy: o.strategy, params, summarizer: o.summarizer });
    const done = variant ? latestFinishedRun(db, variant.id, o.kind, o.force === true) : null;
    o.onPair?.({ k: i + 1, n: pairs.length, pair, reused: done !== null });
    let ids: { variantId: number; runId: number };
    if (variant && done !== null) {
      ids = { variantId: variant.id, runId: done };
      reused++;
    } else {
      const common = { sessionId: pair.sessionId, strategy: o.strategy, params, summarizer: o.summarizer, concurrency: o.concurrency, signal: o.signal };
      const r = o.kind === 'replay' ? await runReplay(db, common) : await runCompaction(db, { ...common, force: o.force });
      if (r.status === 'cancelled') break;
      ids = { variantId: r.variantId, runId: r.runId };
      ran++;
      if (r.status === 'failed') failed++;
      ranPairs.add(pair.index);
    }
    writeTransaction(db, () => recordSweepPoint(db, { sweepId: sweep.id, pairIndex: pair.index, sessionId: pair.sessionId, variantId: ids.variantId, runId: ids.runId, params: pair.params }));
  }
  const detail = getSweepDetail(db, sweep.id)!;
  const mine = new Set(pairs.map((p) => p.index));
  const rows = detail.rows.filter((r) => mine.has(r.index));
  // What the runs made now cost in summarizer calls: read back from their stats.
  const summarizerCalls = rows.filter((r) => ranPairs.has(r.index)).reduce((n, r) => n + (r.replay?.summarizerCalls ?? r.pass?.summarizerCalls ?? 0), 0);
  return { sweep: detail.sweep, rows, ran, reused, summarizerCalls, failed };
}
