/**
 * The worker threads of a sweep on every core (`sweep --jobs N`, electron/engine/sweep.ts):
 * up to N workers (pass-worker.ts, `work: { kind: 'sweep' }`), each with its own connection
 * to the same WAL database, each running one pair at a time through the very engine a
 * one-by-one sweep uses. The runs write their own rows (every write of the store begins
 * IMMEDIATE and waits out the others: electron/store/db.ts); only a pair's description goes
 * in and its ids and status come back. Workers start on first use and stay up for the sweep.
 *
 * Cancel: the pair's signal posts 'cancel' to its worker, whose engine records the run as
 * cancelled and answers. A worker that dies mid-pair fails that pair's promise.
 */
import type { Worker } from 'node:worker_threads';
import type { RunSweepPair, SweepPairJob, SweepPairOutcome } from '../engine/sweep.js';
import { errorFromWorker, startWorker, type WorkerScript } from './compaction-runner.js';
import type { FromSweepWorker, ToSweepWorker } from './pass-protocol.js';

export interface SweepPool {
  runPair: RunSweepPair;
  /** Lets every worker exit and waits for them. */
  close(): Promise<void>;
}

interface PoolWorker {
  worker: Worker;
  exited: Promise<void>;
  /** The pair it runs now: settled by its answer, or failed when the worker dies. */
  current: { id: number; resolve(o: SweepPairOutcome): void; reject(e: Error): void } | null;
}

export function createSweepPool(opts: { dbPath: string; nativeBinding?: string; workerScript: WorkerScript; size: number }): SweepPool {
  const all = new Set<PoolWorker>();
  const idle: PoolWorker[] = [];
  const waiting: Array<(w: PoolWorker) => void> = [];
  let nextId = 1;
  let closed = false;

  const spawn = (): PoolWorker => {
    const worker = startWorker(opts.workerScript, { dbPath: opts.dbPath, nativeBinding: opts.nativeBinding, work: { kind: 'sweep' } });
    let settleExit: () => void = () => undefined;
    const w: PoolWorker = { worker, exited: new Promise<void>((r) => (settleExit = r)), current: null };
    worker.on('message', (msg: FromSweepWorker) => {
      const current = w.current;
      if (!current || current.id !== msg.id) return;
      w.current = null;
      if (msg.type === 'pair-done') current.resolve(msg.outcome);
      else current.reject(errorFromWorker(msg.error));
      release(w);
    });
    let crash: Error | null = null;
    worker.on('error', (err) => (crash = err));
    worker.on('exit', (code) => {
      all.delete(w);
      const i = idle.indexOf(w);
      if (i >= 0) idle.splice(i, 1);
      w.current?.reject(new Error(`the sweep worker ${crash ? `crashed: ${(crash as Error).message}` : `exited (code ${code})`} before finishing its pair`));
      w.current = null;
      settleExit();
    });
    all.add(w);
    return w;
  };

  const release = (w: PoolWorker) => {
    const next = waiting.shift();
    if (next) next(w);
    else idle.push(w);
  };

  const acquire = (): Promise<PoolWorker> => {
    const free = idle.pop();
    if (free) return Promise.resolve(free);
    if (all.size < opts.size) return Promise.resolve(spawn());
    return new Promise((resolve) => waiting.push(resolve));
  };

  const runPair: RunSweepPair = async (job: SweepPairJob, signal?: AbortSignal) => {
    if (closed) throw new Error('the sweep pool is closed');
    const w = await acquire();
    const id = nextId++;
    const post = (msg: ToSweepWorker) => w.worker.postMessage(msg);
    const onAbort = () => post({ type: 'cancel' });
    try {
      return await new Promise<SweepPairOutcome>((resolve, reject) => {
        w.current = { id, resolve, reject };
        post({ type: 'pair', id, job });
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  };

  return {
    runPair,
    async close() {
      closed = true;
      const exits = [...all].map((w) => {
        w.worker.postMessage({ type: 'close' } satisfies ToSweepWorker);
        return w.exited;
      });
      await Promise.all(exits);
    },
  };
}
