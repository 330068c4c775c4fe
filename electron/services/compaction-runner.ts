/**
 * Runs compaction passes OFF THE MAIN THREAD: one worker_threads worker per run,
 * opening its own connection to the same WAL database and calling the engine. The
 * main thread (Electron's main process or the browser-mode server) stays responsive,
 * relays progress as StudioEvents, and cancels through the worker's AbortSignal.
 */
import { conversationKey, sessionOfKey, TwoLineScheduler } from '../engine/two-line-scheduler.js';
import { passVariantKey } from '../engine/engine.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import { Worker } from 'node:worker_threads';
import { isErrorCode, StudioError, type RunStatus, type StudioEvent } from '../../shared/contract.js';
import { writeTransaction, writeWaitSignal, type DB } from '../store/db.js';
import { addRunEvent, finishRun, getRunStatus } from '../store/variants.js';
import type { FromWorker, PassJob, ToWorker, WorkerData, WorkerError } from './pass-protocol.js';

/**
 * How the worker is started: a script file (the bundled .cjs), or with `eval` the
 * source text of a bootstrap (the .ts source through tsx, see defaultWorkerScript).
 */
export interface WorkerScript {
  file: string | URL;
  eval?: boolean;
  execArgv?: string[];
}

/** Starts the worker (pass-worker.ts) on one job: the one way the app starts a worker (passes here, tasks in task-runner.ts). */
export function startWorker(script: WorkerScript, workerData: WorkerData): Worker {
  // The worker's writers and chunked writes share this thread's count of waiting writers (db.ts yieldWriteLock).
  return new Worker(script.file, { workerData: { ...workerData, writeWaitSignal: writeWaitSignal() } satisfies WorkerData, eval: script.eval, execArgv: script.execArgv });
}

/** A worker's error rebuilt with its name and code, so dispatch maps it like a main-thread error. */
export function errorFromWorker(error: WorkerError): Error {
  if (error.name === 'StudioError' && error.code && isErrorCode(error.code)) return new StudioError(error.code, error.message);
  return Object.assign(new Error(error.message), { name: error.name, code: error.code });
}

interface ActiveRun {
  runId: number;
  variantId: number;
  sessionId: number;
  worker: Worker;
  cancelRequested: boolean;
  finished: boolean;
  done: Promise<void>;
}

/** A worker that ignores a cancel this long (a stuck network call) is terminated. */
const CANCEL_GRACE_MS = 10_000;

export class CompactionRunner {
  private readonly active = new Map<number, ActiveRun>();
  /**
   * Sessions with a run starting or running, each with the workers holding it and their
   * strategy: one pass per session at a time, except two-line's conversations (one task per
   * (session, variant)), which run side by side. Keyed by worker: a worker that is only
   * closing its connection after reporting 'finished' must not release a run a newer
   * worker holds.
   */
  private readonly busySessions = new Map<number, Map<Worker, StrategyName>>();
  /** Every live worker (also those still starting) and the promise of its exit. */
  private readonly workers = new Map<Worker, Promise<void>>();

  constructor(
    private readonly opts: {
      db: DB;
      dbPath: string;
      nativeBinding?: string;
      workerScript: WorkerScript;
      emit: (event: StudioEvent) => void;
    },
  ) {}

  /**
   * two-line's "one task per conversation" (electron/engine/two-line-scheduler.ts), a
   * conversation being a (session, variant) pair: a two-line request while that variant's
   * task runs only marks it to run once more when it finishes; other two-line variants of
   * the session run their own tasks. Other strategies get 'busy' while a session is
   * compacting, and a two-line request gets 'busy' while another strategy compacts it.
   */
  private readonly twoLine = new TwoLineScheduler((key, err) => {
    console.error(`compaction: two-line rerun for session ${sessionOfKey(key)} failed: ${err instanceof Error ? err.message : String(err)}`);
  });
  /** The ids of the run each conversation's two-line task is on (resolves once its row exists). */
  private readonly twoLineCurrent = new Map<string, Promise<{ runId: number; variantId: number }>>();
  private stopped = false;

  /**
   * Starts a pass; resolves as soon as the worker has created the run row. A two-line
   * request for a variant whose two-line task is running resolves with that run's ids
   * and `rerunQueued: true`: the pass runs once more after it.
   */
  start(job: PassJob): Promise<{ runId: number; variantId: number; rerunQueued?: boolean }> {
    if (job.strategy !== 'two-line') return this.startNow(job);
    let key: string;
    try {
      key = conversationKey(job.sessionId, passVariantKey(job));
    } catch {
      // Bad parameters: the worker rejects them as it does for every strategy.
      return this.startNow(job);
    }
    return new Promise((resolve, reject) => {
      const outcome = this.twoLine.request(key, async () => {
        if (this.stopped) return;
        const ids = this.startNow(job);
        this.twoLineCurrent.set(key, ids);
        let started: { runId: number; variantId: number };
        try {
          started = await ids;
        } catch (err) {
          reject(err);
          throw err;
        }
        resolve(started);
        await this.whenDone(started.runId);
      });
      if (outcome !== 'started') {
        const current = this.twoLineCurrent.get(key);
        if (current) current.then((ids) => resolve({ ...ids, rerunQueued: true }), reject);
        else resolve(Promise.reject(new StudioError('busy', `a compaction of session ${job.sessionId} is starting; try again`)));
      }
    });
  }

  private startNow(job: PassJob): Promise<{ runId: number; variantId: number }> {
    const holders = this.busySessions.get(job.sessionId);
    // Two-line conversations of one session run side by side (the scheduler keeps one per variant); nothing else shares a session.
    if (holders && holders.size > 0 && (job.strategy !== 'two-line' || [...holders.values()].some((s) => s !== 'two-line'))) {
      return Promise.reject(new StudioError('busy', `a compaction of session ${job.sessionId} is already running; cancel it or wait for it to finish`));
    }
    const worker = startWorker(this.opts.workerScript, { dbPath: this.opts.dbPath, nativeBinding: this.opts.nativeBinding, work: { kind: 'pass', job } });
    const held = holders ?? new Map<Worker, StrategyName>();
    held.set(worker, job.strategy);
    this.busySessions.set(job.sessionId, held);
    const releaseSession = () => {
      const now = this.busySessions.get(job.sessionId);
      if (!now) return;
      now.delete(worker);
      if (now.size === 0) this.busySessions.delete(job.sessionId);
    };

    return new Promise((resolve, reject) => {
      let run: ActiveRun | null = null;
      let settleDone: () => void = () => undefined;
      const done = new Promise<void>((r) => (settleDone = r));
      this.workers.set(worker, done);

      worker.on('message', (msg: FromWorker) => {
        switch (msg.type) {
          case 'started':
            run = { runId: msg.runId, variantId: msg.variantId, sessionId: job.sessionId, worker, cancelRequested: false, finished: false, done };
            this.active.set(msg.runId, run);
            resolve({ runId: msg.runId, variantId: msg.variantId });
            break;
          case 'progress':
            if (run) this.opts.emit({ type: 'run-progress', runId: run.runId, variantId: run.variantId, done: msg.done, total: msg.total, tokens: msg.tokens, message: msg.message });
            break;
          case 'finished':
            // The run row is closed: the session is free again even while the worker exits.
            releaseSession();
            if (run) this.emitFinished(run, msg.status, msg.stats, msg.error);
            break;
          case 'rejected':
            reject(errorFromWorker(msg.error));
            break;
          default: {
            const _exhaustive: never = msg;
            return _exhaustive;
          }
        }
      });
      worker.on('error', (err) => {
        // A crash inside the worker (a failed pass is recorded by the engine and reported as 'finished').
        if (!run) reject(new StudioError('internal', `the compaction worker failed to start: ${err.message}`));
        else this.recordAbnormalEnd(run, 'failed', `the compaction worker crashed: ${err.message}`);
      });
      worker.on('exit', (code) => {
        releaseSession();
        if (!run) {
          reject(new StudioError('internal', `the compaction worker exited (code ${code}) before starting the run`));
        } else {
          if (run.cancelRequested) this.recordAbnormalEnd(run, 'cancelled', 'cancelled');
          else this.recordAbnormalEnd(run, 'failed', `the compaction worker exited (code ${code}) before finishing the run`);
          this.active.delete(run.runId);
        }
        this.workers.delete(worker);
        settleDone();
      });
    });
  }

  private emitFinished(run: ActiveRun, status: Exclude<RunStatus, 'running'>, stats: Record<string, unknown>, error: string | null): void {
    if (run.finished) return;
    run.finished = true;
    this.opts.emit({ type: 'run-finished', runId: run.runId, variantId: run.variantId, status, stats, error });
  }

  /**
   * The worker died or was terminated without reporting: close the run row from the
   * main connection (only if still 'running', so a run the engine closed is untouched).
   */
  private recordAbnormalEnd(run: ActiveRun, status: 'failed' | 'cancelled', error: string): void {
    if (run.finished) return;
    if (getRunStatus(this.opts.db, run.runId) === 'running') {
      writeTransaction(this.opts.db, () => {
        addRunEvent(this.opts.db, run.runId, status === 'cancelled' ? 'cancelled' : 'worker_failed', { error });
        finishRun(this.opts.db, run.runId, status, {}, status === 'cancelled' ? null : error);
      });
    }
    this.emitFinished(run, status, {}, status === 'cancelled' ? null : error);
  }

  /** Asks the run's worker to abort; a worker that does not stop in time is terminated. */
  cancel(runId: number, graceMs: number = CANCEL_GRACE_MS): boolean {
    const run = this.active.get(runId);
    if (!run || run.finished) return false;
    run.cancelRequested = true;
    this.abortWorker(run.worker, graceMs);
    return true;
  }

  private abortWorker(worker: Worker, graceMs: number): void {
    worker.postMessage({ type: 'cancel' } satisfies ToWorker);
    const timer = setTimeout(() => void worker.terminate(), graceMs);
    timer.unref();
    void this.workers.get(worker)?.then(() => clearTimeout(timer));
  }

  /** Sessions with a pass starting or running. */
  activeSessions(): ReadonlySet<number> {
    return new Set(this.busySessions.keys());
  }

  isRunning(runId: number): boolean {
    return this.active.has(runId);
  }

  /** The worker thread running this pass (never the main thread's 0), while it runs. */
  threadIdOf(runId: number): number | null {
    return this.active.get(runId)?.worker.threadId ?? null;
  }

  /** Resolves when the run's worker has exited (tests, shutdown). */
  whenDone(runId: number): Promise<void> {
    return this.active.get(runId)?.done ?? Promise.resolve();
  }

  /** Resolves when every two-line task of the session (each conversation's) has ended and no rerun is marked (tests). */
  async whenTwoLineIdle(sessionId: number): Promise<void> {
    for (let keys = this.twoLineKeysOf(sessionId); keys.length > 0; keys = this.twoLineKeysOf(sessionId)) await Promise.all(keys.map((k) => this.twoLine.whenIdle(k)));
  }

  private twoLineKeysOf(sessionId: number): string[] {
    return this.twoLine.keys().filter((k) => sessionOfKey(k) === sessionId);
  }

  /**
   * Cancels every pass, also those still starting, and waits for their workers to exit
   * (app quit, server close) — before the caller closes the main connection, which the
   * exit handlers use to close runs a terminated worker left open.
   */
  async stopAll(graceMs = 3_000): Promise<void> {
    // No two-line rerun may start a worker once shutdown has begun.
    this.stopped = true;
    for (const run of this.active.values()) run.cancelRequested = true;
    const exits = [...this.workers.entries()];
    for (const [worker] of exits) this.abortWorker(worker, graceMs);
    await Promise.all(exits.map(([, exited]) => exited));
  }
}
