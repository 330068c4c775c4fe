/**
 * Runs imports and deletes OFF THE MAIN THREAD, in the same worker as passes
 * (pass-worker.ts, started by compaction-runner.ts's `startWorker`): one worker per job
 * with its own connection to the WAL database. The main thread (Electron's main process or
 * the browser-mode server) keeps answering while a million-turn import or a large delete
 * runs; progress crosses back as `job-progress` StudioEvents, the end as `job-finished`.
 *
 * Cancel sets a flag in shared memory that the job reads between turns (an import: its open
 * chunk rolls back and its committed chunks are deleted) and between batches (a delete: the rest stays marked and the
 * next start finishes it); a worker that does not stop in time is terminated.
 *
 * Imports come from a pool of IMPORT_WORKERS workers with a queue: fifty uploads at once run
 * two at a time (each a worker of a few hundred MB at its peak), the others wait their turn in
 * order, told so by a `job-progress` ("waiting for an import worker: N ahead"); a queued job
 * that is cancelled leaves the queue without starting.
 */
import crypto from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { StudioError, type JobKind, type StudioEvent } from '../../shared/contract.js';
import { errorFromWorker, startWorker, type WorkerScript } from './compaction-runner.js';
import type { FromTaskWorker, TaskJob } from './pass-protocol.js';

interface ActiveTask {
  kind: JobKind;
  worker: Worker;
  flag: Int32Array;
  exited: Promise<void>;
}

/** Imports running at once; the rest wait in order. Two: this machine's cores, and a worker's memory bounded twice. */
export const IMPORT_WORKERS = 2;

interface QueuedImport {
  jobId: string;
  start: () => void;
  cancel: () => void;
}

/** A job that ignores a cancel this long (stuck parsing one huge document) is terminated. */
const CANCEL_GRACE_MS = 10_000;

export class TaskRunner {
  /** Running jobs by jobId (an upload's id is added once the worker has read it). */
  private readonly tasks = new Map<string, ActiveTask>();
  private readonly running = new Set<ActiveTask>();
  /** Uploads whose body the worker has not read yet: their jobId is not known. */
  private unnamedUploads = 0;
  /** Cancels that named no running job while an upload was unnamed: applied when its id arrives. */
  private readonly earlyCancels = new Set<string>();
  /** Deletes run one after another: two workers deleting a parent and its child would race. */
  private deletes: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Imports running now (at most IMPORT_WORKERS) and the ones waiting for a worker, in order. */
  private importsRunning = 0;
  private readonly importQueue: QueuedImport[] = [];

  constructor(
    private readonly opts: {
      dbPath: string;
      nativeBinding?: string;
      workerScript: WorkerScript;
      emit: (event: StudioEvent) => void;
    },
  ) {}

  /**
   * Runs a task in a worker; resolves with its result, rejects with its error (cancelled: code
   * 'cancelled'). An import first waits for one of the pool's IMPORT_WORKERS.
   */
  run<T>(task: TaskJob, jobId: string = crypto.randomUUID()): Promise<T> {
    if (this.stopped) return Promise.reject(new StudioError('busy', 'the service is closing'));
    if (task.kind !== 'import') return this.start<T>(task, jobId);
    return new Promise<void>((resolve, reject) => {
      if (this.importsRunning < IMPORT_WORKERS) {
        this.importsRunning++;
        return resolve();
      }
      this.importQueue.push({ jobId, start: resolve, cancel: () => reject(new StudioError('cancelled', 'import cancelled before it started')) });
      this.opts.emit({ type: 'job-progress', jobId, kind: 'import', done: 0, total: 0, message: `waiting for an import worker: ${this.importQueue.length - 1} ahead` });
    }).then(() => this.start<T>(task, jobId).finally(() => this.releaseImportWorker()));
  }

  /** Imports waiting for a worker (its state, for tests and the window). */
  get queuedImports(): number {
    return this.importQueue.length;
  }

  private releaseImportWorker(): void {
    const next = this.importQueue.shift();
    // The slot passes to the next import in line (the count stays), or is freed.
    if (next && !this.stopped) next.start();
    else this.importsRunning--;
  }

  private start<T>(task: TaskJob, jobId: string): Promise<T> {
    if (this.stopped) return Promise.reject(new StudioError('busy', 'the service is closing'));
    const kind: JobKind = task.kind;
    const cancelFlag = new SharedArrayBuffer(4);
    const worker = startWorker(this.opts.workerScript, { dbPath: this.opts.dbPath, nativeBinding: this.opts.nativeBinding, work: { kind: 'task', task, cancelFlag } });
    let settleExit: () => void = () => undefined;
    const active: ActiveTask = { kind, worker, flag: new Int32Array(cancelFlag), exited: new Promise<void>((r) => (settleExit = r)) };
    const ids = [jobId];
    this.tasks.set(jobId, active);
    let unnamed = task.kind === 'import' && task.source.from === 'upload';
    if (unnamed) this.unnamedUploads++;
    const named = () => {
      if (!unnamed) return;
      unnamed = false;
      this.unnamedUploads--;
    };
    this.running.add(active);
    const finish = (status: 'completed' | 'failed' | 'cancelled', error: string | null) => this.opts.emit({ type: 'job-finished', jobId: ids[ids.length - 1], kind, status, error });

    return new Promise<T>((resolve, reject) => {
      let outcome: { ok: true; value: T } | { ok: false; error: Error } | null = null;
      worker.on('message', (msg: FromTaskWorker) => {
        switch (msg.type) {
          case 'task-progress':
            this.opts.emit({ type: 'job-progress', jobId: ids[ids.length - 1], kind, done: msg.done, total: msg.total, message: msg.message });
            break;
          case 'task-job':
            named();
            ids.push(msg.jobId);
            this.tasks.set(msg.jobId, active);
            // Cancelled while its body was still being read: stop it now.
            if (this.earlyCancels.delete(msg.jobId)) this.stop(active, CANCEL_GRACE_MS);
            break;
          case 'task-done':
            outcome = { ok: true, value: msg.result as T };
            break;
          case 'task-failed':
            outcome = { ok: false, error: errorFromWorker(msg.error) };
            break;
          default: {
            const _exhaustive: never = msg;
            return _exhaustive;
          }
        }
      });
      worker.on('error', (err) => {
        outcome ??= { ok: false, error: new StudioError('internal', `the ${kind} worker crashed: ${err.message}`) };
      });
      worker.on('exit', (code) => {
        named();
        for (const id of ids) if (this.tasks.get(id) === active) this.tasks.delete(id);
        this.running.delete(active);
        settleExit();
        const cancelled = Atomics.load(active.flag, 0) === 1;
        const result = outcome ?? { ok: false as const, error: cancelled ? new StudioError('cancelled', `${kind} cancelled`) : new StudioError('internal', `the ${kind} worker exited (code ${code}) before finishing`) };
        if (result.ok) {
          finish('completed', null);
          resolve(result.value);
        } else {
          const isCancel = (result.error as { code?: string }).code === 'cancelled';
          finish(isCancel ? 'cancelled' : 'failed', isCancel ? null : result.error.message);
          reject(result.error);
        }
      });
    });
  }

  /** Deletes sessions already marked (electron/store/session-deletion.ts), after any delete before it. */
  runDelete(sessionIds: number[]): Promise<{ rows: number }> {
    const next = this.deletes.then(() => this.run<{ rows: number }>({ kind: 'delete', sessionIds }, `delete-${sessionIds[sessionIds.length - 1]}`));
    this.deletes = next.catch(() => undefined);
    return next;
  }

  /** Asks a job to stop; a job that does not stop in time is terminated. False when no such job runs. */
  cancel(jobId: string, graceMs: number = CANCEL_GRACE_MS): boolean {
    const queued = this.importQueue.findIndex((q) => q.jobId === jobId);
    if (queued !== -1) {
      this.importQueue.splice(queued, 1)[0].cancel();
      this.opts.emit({ type: 'job-finished', jobId, kind: 'import', status: 'cancelled', error: null });
      return true;
    }
    const task = this.tasks.get(jobId);
    if (!task) {
      // Perhaps an upload whose body the worker is still reading: remembered for when it says its id.
      if (this.unnamedUploads === 0) return false;
      this.earlyCancels.add(jobId);
      if (this.earlyCancels.size > 32) this.earlyCancels.delete(this.earlyCancels.values().next().value!);
      return true;
    }
    this.stop(task, graceMs);
    return true;
  }

  private stop(task: ActiveTask, graceMs: number): void {
    Atomics.store(task.flag, 0, 1);
    const timer = setTimeout(() => void task.worker.terminate(), graceMs);
    timer.unref();
    void task.exited.then(() => clearTimeout(timer));
  }

  /** Jobs running now (tests, shutdown). */
  get size(): number {
    return this.running.size;
  }

  /** Resolves once every delete queued so far has ended (tests). */
  whenDeletesDone(): Promise<void> {
    return this.deletes.then(() => undefined);
  }

  /** Stops every job (an import is undone, or finished as a delete at the next start; a delete resumes then) and waits for the workers. */
  async stopAll(graceMs = 3_000): Promise<void> {
    this.stopped = true;
    for (const q of this.importQueue.splice(0)) q.cancel();
    const all = [...this.running];
    for (const task of all) this.stop(task, graceMs);
    await Promise.all(all.map((t) => t.exited));
  }
}
