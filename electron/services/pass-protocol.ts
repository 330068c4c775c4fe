/**
 * Messages between the service (main thread) and the worker (pass-worker.ts), which runs
 * one job: a compaction pass (compaction-runner.ts) or a task, an import or the batches of
 * a delete (task-runner.ts). The worker opens its own connection to the same WAL database,
 * so only small control and progress messages cross the thread boundary — never turns or
 * summaries (an import's text crosses once, inward, when the window sent it in memory).
 */
import type { RunStatus, SummarizerConfig } from '../../shared/contract.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import type { TokenizerName } from '../tokenizer.js';
import type { SweepPairJob, SweepPairOutcome } from '../engine/sweep.js';

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

/** Where an import's files come from. */
export type ImportSource =
  | { from: 'text'; fileName: string; text: string }
  | { from: 'texts'; files: Array<{ fileName: string; text: string }> }
  | { from: 'paths'; paths: string[] }
  /**
   * A request body the browser-mode server streamed to a temporary file: the JSON input of
   * `op`, parsed and validated in the worker so the server's thread never holds it.
   */
  | { from: 'upload'; op: 'importText' | 'importTexts'; file: string };

/** A job of the task worker. */
export type TaskJob = { kind: 'import'; source: ImportSource; format?: string; tokenizer: TokenizerName } | { kind: 'delete'; sessionIds: number[] };

export interface WorkerData {
  dbPath: string;
  nativeBinding?: string;
  /** The parent's count of writers waiting for the lock (electron/store/db.ts `writeWaitSignal`), set by startWorker. */
  writeWaitSignal?: SharedArrayBuffer;
  /**
   * A pass (cancelled by a 'cancel' message: its code awaits), or a task (cancelled through
   * `cancelFlag`, an Int32Array over shared memory set to 1: an import runs synchronously
   * inside one transaction and reads no message until it ends).
   */
  work: { kind: 'pass'; job: PassJob } | { kind: 'task'; task: TaskJob; cancelFlag: SharedArrayBuffer } | { kind: 'sweep' };
}

export type ToWorker = { type: 'cancel' };

/**
 * A sweep worker (sweep-pool.ts) lives for the whole sweep and runs one pair at a time:
 * 'pair' starts one, 'cancel' aborts the one running, 'close' lets the worker exit.
 */
export type ToSweepWorker = { type: 'pair'; id: number; job: SweepPairJob } | { type: 'cancel' } | { type: 'close' };

export type FromSweepWorker = { type: 'pair-done'; id: number; outcome: SweepPairOutcome } | { type: 'pair-failed'; id: number; error: WorkerError };

export type FromWorker =
  | { type: 'started'; runId: number; variantId: number }
  | { type: 'progress'; done: number; total: number; tokens: number; message?: string }
  | { type: 'finished'; status: Exclude<RunStatus, 'running'>; stats: Record<string, unknown>; error: string | null }
  /** The job failed before a run row existed (bad params, unknown session): no run to report. */
  | { type: 'rejected'; error: WorkerError };

export interface WorkerError {
  name: string;
  message: string;
  code?: string;
}

/** What a task worker posts. */
export type FromTaskWorker =
  | { type: 'task-progress'; done: number; total: number; message: string }
  /** An upload's own `jobId`, known once the worker has read its body: cancel can find it. */
  | { type: 'task-job'; jobId: string }
  | { type: 'task-done'; result: unknown }
  | { type: 'task-failed'; error: WorkerError };
