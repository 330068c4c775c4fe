/**
 * The shapes of a sweep (docs/sweeps.md): one strategy's grid of parameter points crossed with
 * sessions, one row per (session, point). The contract's `listSweeps` / `getSweep` results,
 * the CLI's `sweep --json` rows and its CSV (shared/sweep/table.ts) are these.
 */
import type { FactCategory } from '../facts/types.js';
import type { RunStatus, SummarizerConfig } from '../contract.js';
import type { StrategyName } from '../strategies/types.js';

/** What a sweep runs per pair: a replay (call by call, priced) or one pass. */
export type SweepKind = 'pass' | 'replay';

/** One grid axis: a parameter and the values it takes, in the order given. */
export interface SweepAxis {
  name: string;
  values: number[];
}

/** A stored sweep (`sweeps` row). */
export interface SweepInfo {
  id: number;
  strategy: StrategyName;
  grid: SweepAxis[];
  /** `--set` parameters every point shares. */
  fixedParams: Record<string, number>;
  summarizer: SummarizerConfig;
  /** Root sessions, in sweep order. */
  sessionIds: number[];
  kind: SweepKind;
  createdAt: string;
  /** Pairs stored so far (a shard stores its share only). */
  points: number;
}

/** Retention of one fact category: kept of total, and the percentage (null when total is 0). */
export interface RetentionCell {
  kept: number;
  total: number;
  pct: number | null;
}

/** The figures of a replay run (its timeline totals and summarizer counters). */
export interface SweepReplayFigures {
  modelCalls: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Model calls with prompt caching, USD. */
  costUsd: number;
  summarizerCostUsd: number;
  peakContext: number;
  firings: number;
  summarizerCalls: number;
}

/** The figures of a pass run (its stats). */
export interface SweepPassFigures {
  tokensBefore: number | null;
  tokensAfter: number | null;
  /** Summaries the run wrote. */
  summaries: number;
  summarizerCalls: number;
  summarizerCostUsd: number;
}

/** One (session, parameter point) of a sweep. */
export interface SweepRow {
  /** The pair's place in the sweep's order (session-major, then the grid's product). */
  index: number;
  sessionId: number;
  /** The point's grid values (the fixed `--set` parameters are the sweep's). */
  params: Record<string, number>;
  variantId: number;
  runId: number;
  status: RunStatus;
  replay: SweepReplayFigures | null;
  pass: SweepPassFigures | null;
  /** Per category over the run's summaries' ledgers; null when they have none (a strategy that writes no summary). */
  retention: Record<FactCategory, RetentionCell> | null;
  /** Every category together (kept / total, %), the chart's y. */
  retentionPct: number | null;
  /** The text-level score of the same ledgers (shared/retention/text.ts), beside the fact score; null when not measured. */
  textRetention: { kept: number; total: number } | null;
  textRetentionPct: number | null;
}

/** `getSweep`: the sweep and its rows in order. */
export interface SweepDetail {
  sweep: SweepInfo;
  rows: SweepRow[];
}
