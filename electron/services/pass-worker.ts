/**
 * The pass worker (worker_threads): opens its own connection to the WAL database,
 * runs one compaction through the engine, posts progress, and aborts on 'cancel'.
 * Bundled to dist/electron/pass-worker.cjs; tests run the .ts through tsx.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/db.js';
import type { FromWorker, PassWorkerData, ToWorker } from './pass-protocol.js';
import { runPassJob } from './pass-job.js';

if (!parentPort) throw new Error('pass-worker.ts must run as a worker thread');
const port = parentPort;
const { dbPath, nativeBinding, job } = workerData as PassWorkerData;
const controller = new AbortController();
const post = (msg: FromWorker) => port.postMessage(msg);

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'cancel') controller.abort(new Error('cancelled by the user'));
});

async function main(): Promise<void> {
  const db = openDatabase(dbPath, { nativeBinding });
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
    const e = err instanceof Error ? err : new Error(String(err));
    const code = (e as { code?: unknown }).code;
    if (!started) post({ type: 'rejected', error: { name: e.name, message: e.message, code: typeof code === 'string' ? code : undefined } });
    // After the run started, the engine records failures itself; a throw here is a bug
    // that the main thread reports when the worker exits without 'finished'.
    else throw e;
  } finally {
    db.close();
    // Stop listening so the worker exits on its own (messages posted above are flushed first).
    port.removeAllListeners('message');
    port.unref();
  }
}

void main();
