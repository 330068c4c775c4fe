/**
 * The comparison of 2–4 variants of one session (the Compare tab) as it crosses the boundary:
 * the contract's `compareVariants` result, the CLI's `compare --json` and the exports.
 * Columns are the variants plus the two baselines every replay timeline carries: no
 * compaction (`none`) and the source tool's own compactions (`source`).
 */
import type { ReplayTotals } from '../contract.js';
import type { StrategyName } from '../strategies/types.js';
import type { FactCategory } from '../facts/types.js';

/**
 * What a column does with one turn at a call:
 * - `verbatim`: sent as recorded;
 * - `reshaped`: sent, but the message normalizer changed it (a tool result whose call left the
 *   context became text, a repeated tool id was renamed: shared/replay/normalize.ts);
 * - `masked`: sent with its tool output replaced by the masking placeholder;
 * - `summarized`: not sent; a summary the column sends covers it (`summaryId`);
 * - `dropped`: not sent and covered by no summary that is sent.
 */
export const TURN_FATES = ['verbatim', 'reshaped', 'masked', 'summarized', 'dropped'] as const;
export type TurnFate = (typeof TURN_FATES)[number];

/** Consecutive turns with one fate (and, when summarized, one summary); positions inclusive. */
export interface FateSegment {
  from: number;
  to: number;
  fate: TurnFate;
  summaryId: number | null;
}

export type CompareColumnKind = 'variant' | 'none' | 'source';

export interface CompareColumn {
  /** `v<variantId>`, `none` or `source`. */
  key: string;
  kind: CompareColumnKind;
  label: string;
  variantId: number | null;
  /** The replay run the column reads (the variant's newest completed replay); null for a baseline or a variant not replayed. */
  runId: number | null;
  strategy: StrategyName | null;
  params: Record<string, number | string | boolean> | null;
  /** A one-shot "compact as of call N" variant: its pass saw only the turns before call N. */
  asOfCall: number | null;
  /** 'replayed': a completed replay; 'not-replayed': none yet (start one); 'one-shot': an as-of-call pass (its context, no timeline). */
  status: 'replayed' | 'not-replayed' | 'one-shot' | 'baseline';
}

/** A summary a column sends at the call. */
export interface ContextSummary {
  id: number;
  kind: string;
  depth: number;
  firstPosition: number;
  lastPosition: number;
  tokens: number;
  text: string;
}

/** One column's context at the call. */
export interface ColumnContext {
  key: string;
  /** What the model received at the call (the timeline's context: a + b × view); null where unknown. */
  contextTokens: number | null;
  /** Tokens of the messages themselves (the view, the session's tokenizer). */
  viewTokens: number;
  messages: number;
  segments: FateSegment[];
  /** Turns per fate. */
  counts: Record<TurnFate, number>;
  summaries: ContextSummary[];
}

/** A run of turns where the columns' fates are constant; `same` when every column treats it alike. */
export interface ContextDiffRow {
  from: number;
  to: number;
  /** Per column, in the order of `columns`. */
  fates: TurnFate[];
  summaryIds: Array<number | null>;
  same: boolean;
}

/** Summaries of different columns whose covered turn ranges overlap: the same span summarized side by side. */
export interface SameSpanGroup {
  from: number;
  to: number;
  summaries: Array<ContextSummary & { key: string }>;
}

/** One fact of the turns some column compacted, and whether it survives in each column's context. */
export interface FactRow {
  category: FactCategory;
  text: string;
  detail?: string;
  /** shared/facts `salience` over the compacted turns (rounded to 0.01); rows are sorted by it. */
  salience: number;
  /** Per column, in the order of `FactsComparison.columnKeys`. */
  survives: boolean[];
  /** Some columns keep it and others lose it. */
  differs: boolean;
}

/** "Which facts survive in one and not the other" at the call (shared/compare/facts.ts). */
export interface FactsComparison {
  /** The columns compared: the variants with a context at the call, then `source` (not `none`, which keeps everything). */
  columnKeys: string[];
  /** Turns before the call that some column summarized, masked or dropped. */
  compactedTurns: number;
  /** Facts of those turns (completed todos excluded, as in the ledger). */
  total: number;
  /** Per column: facts that survive in its context. */
  kept: number[];
  /** Facts some columns keep and others lose. */
  differing: number;
  /** By salience, highest first; at most MAX_FACT_ROWS. */
  rows: FactRow[];
  /**
   * Beside the fact counts, the text-level score of the same turns per column (same order as
   * `columnKeys`): their concrete strings found as written in the column's context
   * (shared/retention/text.ts). `textTotal` strings in all.
   */
  textTotal: number;
  textKept: number[];
}

export interface ContextComparison {
  call: number;
  /** Position of the call's assistant turn: the context holds turns [0, position). */
  position: number;
  columns: ColumnContext[];
  diff: ContextDiffRow[];
  sameSpan: SameSpanGroup[];
  facts: FactsComparison;
}

/** Per model call, aligned by call index; `null` where a column has no figure (the source did not report, a column not replayed). */
export interface CompareSeries {
  position: number[];
  context: Record<string, Array<number | null>>;
  costUsd: Record<string, Array<number | null>>;
  /** Calls at which each column compacted (firings; the source tool's own compactions). */
  firings: Record<string, number[]>;
}

export interface Comparison {
  sessionId: number;
  sessionTitle: string;
  columns: CompareColumn[];
  /** Per column key; null for a variant not replayed or a one-shot pass. */
  totals: Record<string, ReplayTotals | null>;
  /** Null when no column has a replay. */
  series: CompareSeries | null;
  calls: number;
  context: ContextComparison | null;
}
