/**
 * The worker (worker_threads) of every long job of the app: it opens its own connection
 * to the WAL database and runs one job, a compaction pass through the engine (aborted on a
 * 'cancel' message) or a task, an import or a delete (task-job.ts; cancelled through a
 * shared flag, read between turns and between batches). It posts progress and the outcome.
 * A sweep worker (sweep-pool.ts) instead stays up and runs the sweep's pairs it is sent,
 * one at a time.
 * Bundled to dist/electron/pass-worker.cjs; tests run the .ts through tsx.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase, useWriteWaitSignal } from '../store/db.js';
import type { FromSweepWorker, FromTaskWorker, FromWorker, PassJob, TaskJob, ToSweepWorker, ToWorker, WorkerData, WorkerError } from './pass-protocol.js';
import { runPassJob } from './pass-job.js';
import { runSweepPair } from '../engine/sweep.js';
import { runTaskJob } from './task-job.js';

if (!parentPort) throw new Error('pass-worker.ts must run as a worker thread');
const port = parentPort;
const { dbPath, nativeBinding, work, writeWaitSignal } = workerData as WorkerData;
if (writeWaitSignal) useWriteWaitSignal(writeWaitSignal);

function workerError(err: unknown): WorkerError {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  return { name: e.name, message: e.message, code: typeof code === 'string' ? code : undefined };
}

function release(): void {
  // Stop listening so the worker exits on its own (messages posted before are flushed first).
  port.removeAllListeners('message');
  port.unref();
}

async function runPass(job: PassJob): Promise<void> {
  const controller = new AbortController();
  const post = (msg: FromWorker) => port.postMessage(msg);
  port.on('message', (msg: ToWorker) => {
    if (msg.type === 'cancel') controller.abort(new Error('cancelled by the user'));
  });
  const db = openDatabase(dbPath, { nativeBinding, check: false, resume: 'none' });
  let started = false;
  try {
    const outcome = await runPassJob(db, job, {
      signal: controller.signal,
      onStarted: (runId, variantId) => {
        started = true;
        post({ type: 'started', runId, variantId });
      },
      onProgress: (p) => post({ type: 'progress', ...p }),
    });
    post({ type: 'finished', ...outcome });
  } catch (err) {
    if (!started) post({ type: 'rejected', error: workerError(err) });
    // After the run started, the engine records failures itself; a throw here is a bug
    // that the main thread reports when the worker exits without 'finished'.
    else throw err;
  } finally {
    db.close();
    release();
  }
}

function runTask(task: TaskJob, cancelFlag: SharedArrayBuffer): void {
  const flag = new Int32Array(cancelFlag);
  const post = (msg: FromTaskWorker) => port.postMessage(msg);
  let db: ReturnType<typeof openDatabase> | null = null;
  try {
    db = openDatabase(dbPath, { nativeBinding, check: false, resume: 'none' });
    const result = runTaskJob(db, task, {
      cancelled: () => Atomics.load(flag, 0) === 1,
      onProgress: (p) => post({ type: 'task-progress', ...p }),
      onJobId: (jobId) => post({ type: 'task-job', jobId }),
    });
    post({ type: 'task-done', result });
  } catch (err) {
    post({ type: 'task-failed', error: workerError(err) });
  } finally {
    db?.close();
    release();
  }
}

function runSweepPairs(): void {
  const db = openDatabase(dbPath, { nativeBinding });
  const post = (msg: FromSweepWorker) => port.postMessage(msg);
  let controller: AbortController | null = null;
  port.on('message', (msg: ToSweepWorker) => {
    switch (msg.type) {
      case 'cancel':
        controller?.abort(new Error('cancelled by the user'));
        break;
      case 'close':
        db.close();
        release();
        break;
      case 'pair': {
        const c = new AbortController();
        controller = c;
        runSweepPair(db, msg.job, c.signal).then(
          (outcome) => post({ type: 'pair-done', id: msg.id, outcome }),
          (err: unknown) => post({ type: 'pair-failed', id: msg.id, error: workerError(err) }),
        );
        break;
      }
      default: {
        const _exhaustive: never = msg;
        return _exhaustive;
      }
    }
  });
}

switch (work.kind) {
  case 'pass':
    void runPass(work.job);
    break;
  case 'task':
    runTask(work.task, work.cancelFlag);
    break;
  case 'sweep':
    runSweepPairs();
    break;
  default: {
    const _exhaustive: never = work;
    throw new Error(`unknown work ${JSON.stringify(_exhaustive)}`);
  }
}
