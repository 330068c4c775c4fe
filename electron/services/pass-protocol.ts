/**
 * Messages between the service (main thread) and the pass worker. The worker opens
 * its own connection to the same WAL database, so only small control and progress
 * messages cross the thread boundary — never turns or summaries.
 */
import type { RunStatus, SummarizerConfig } from '../../shared/contract.js';
import type { StrategyName } from '../../shared/strategies/types.js';

export interface PassJob {
  sessionId: number;
  strategy: StrategyName;
  params: Record<string, number | string | boolean>;
  force: boolean;
  /** "Compact as of call N" (engine `asOfCall`): the pass sees only the turns before call N. */
  asOfCall?: number;
  summarizer: SummarizerConfig;
  /** Passed to the worker only (never stored in the database or sent to the window). */
  apiKey: string | null;
  concurrency: number;
}

export interface PassWorkerData {
  dbPath: string;
  nativeBinding?: string;
  job: PassJob;
}

export type ToWorker = { type: 'cancel' };

export type FromWorker =
  | { type: 'started'; runId: number; variantId: number }
  | { type: 'progress'; done: number; total: number; tokens: number; message?: string }
  | { type: 'finished'; status: Exclude<RunStatus, 'running'>; stats: Record<string, unknown>; error: string | null }
  /** The job failed before a run row existed (bad params, unknown session): no run to report. */
  | { type: 'rejected'; error: { name: string; message: string; code?: string } };
