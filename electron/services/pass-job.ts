/**
 * One compaction job as the worker runs it: the seam between the service's worker
 * protocol and the compaction engine (electron/compaction/engine.ts).
 */
import type { DB } from '../store/db.js';
import { StudioError, type RunStatus } from '../../shared/contract.js';
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

export async function runPassJob(_db: DB, _job: PassJob, _hooks: PassJobHooks): Promise<PassJobOutcome> {
  throw new StudioError('internal', 'the compaction engine is not available in this build yet');
}
