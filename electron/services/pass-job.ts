/**
 * One compaction job as the worker runs it: the seam between the service's worker
 * protocol and the compaction engine (electron/engine/engine.ts).
 */
import type { DB } from '../store/db.js';
import type { RunStatus } from '../../shared/contract.js';
import { runCompaction } from '../engine/engine.js';
import type { PassJob } from './pass-protocol.js';

export interface PassJobHooks {
  signal: AbortSignal;
  /** Called once the run row exists (the service answers startCompaction then). */
  onStarted(runId: number, variantId: number): void;
  onProgress(p: { done: number; total: number; tokens: number; message?: string }): void;
}

export interface PassJobOutcome {
  status: Exclude<RunStatus, 'running'>;
  stats: Record<string, unknown>;
  error: string | null;
}

/**
 * Runs the pass. Bad parameters or an unknown session throw before a run exists (the
 * worker reports them as a rejected start); afterwards the engine records every outcome,
 * failures and cancellation included, on the run row and returns it.
 */
export async function runPassJob(db: DB, job: PassJob, hooks: PassJobHooks): Promise<PassJobOutcome> {
  const result = await runCompaction(db, {
    sessionId: job.sessionId,
    strategy: job.strategy,
    params: job.params,
    force: job.force,
    ...(job.asOfCall === undefined ? {} : { asOfCall: job.asOfCall }),
    // The key travels only inside this process; the variant is keyed by the identity without it.
    summarizer: { ...job.summarizer, ...(job.apiKey ? { apiKey: job.apiKey } : {}) },
    concurrency: job.concurrency,
    signal: hooks.signal,
    onRunStarted: ({ runId, variantId }) => hooks.onStarted(runId, variantId),
    onProgress: ({ done, total, tokens, message }) => hooks.onProgress({ done, total, tokens, message }),
    // The session's own tokenizer (the one its stored counts were made with) is the engine's default.
  });
  return { status: result.status, stats: result.stats, error: result.error };
}
