/**
 * The facts of a span of turns: what a continuing agent would need to still know after the
 * span is compacted (the loss ledger; the extractive summarizer is built on them).
 */

import type { TextRetention } from '../retention/text.js';

export type FactCategory = 'path' | 'command' | 'error' | 'identifier' | 'number' | 'request' | 'todo';

/** Every category, in the order ledgers and tables show them. */
export const FACT_CATEGORIES: readonly FactCategory[] = ['request', 'todo', 'path', 'command', 'error', 'identifier', 'number'];

export type PathAction = 'read' | 'created' | 'edited' | 'deleted' | 'mentioned';
export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface Fact {
  category: FactCategory;
  /** Canonical identity, used for dedupe (with the category) and survival matching. */
  key: string;
  /** How it reads in a ledger line ("lib/foo.ex", "mix test"). */
  text: string;
  mentions: number;
  /** Item indices (time order) where it was first and last seen. */
  firstItem: number;
  lastItem: number;
  /** The user's own words named it. */
  userNamed: boolean;
  /** Human detail: "edited 4×", "failed, exit 2", "fixed later", "in_progress". */
  detail?: string;
  /** Paths: how often each was done to it. */
  actions?: Partial<Record<PathAction, number>>;
  /** Commands: the outcome of the last run (from its paired tool_result); null when not stated. */
  exitCode?: number | null;
  ok?: boolean;
  /** Commands: how many runs failed. */
  failures?: number;
  /** Errors: a later successful run of the same command (or tool on the same target). */
  fixed?: boolean;
  /** Errors: what a later success fixes them (`command:<canonical command>` or `<tool>:<target>`), so a merge can tell too. */
  source?: string;
  /** Errors: the other keys a later successful command fixes them by (`target:mix test`, `file:lib/foo.ex`; shared/facts/errors.ts), so a merge can tell too. */
  targets?: string[];
  /** Todo items: state as of the span's end. */
  status?: TodoStatus;
}

/**
 * A decision: a sentence that states a choice with its reason ("use X because Y",
 * "switched to X instead of Y"), not narration of a step ("Let me…", "Perfect!"). Kept
 * beside the facts, outside the ledger's categories: the ledger scores what a summary
 * must keep verbatim-ish, a decision is for the summary to carry when it has room.
 */
export interface Decision {
  /** Lowercased text: identity for dedupe. */
  key: string;
  text: string;
  firstItem: number;
  lastItem: number;
  mentions: number;
  userNamed: boolean;
}

export interface FactSet {
  facts: Fact[];
  itemCount: number;
  /** Decisions in time order (absent: none were looked for, e.g. a ledger's own sets). */
  decisions?: Decision[];
}

export interface Ledger {
  /** Both ranked by salience, highest first. */
  kept: Fact[];
  lost: Fact[];
  retention: Record<FactCategory, { kept: number; total: number }>;
}

/** An empty retention record (every category 0 of 0). */
export function emptyRetention(): Record<FactCategory, { kept: number; total: number }> {
  const r = {} as Record<FactCategory, { kept: number; total: number }>;
  for (const c of FACT_CATEGORIES) r[c] = { kept: 0, total: 0 };
  return r;
}

/** One fact as a stored ledger lists it. */
export interface LedgerEntry {
  category: FactCategory;
  text: string;
  detail?: string;
}

/**
 * A ledger as it is stored and crosses the process boundary: retention per category and
 * the most salient lost and kept facts (`LEDGER_TOP` of each).
 */
export interface SummaryLedger {
  retention: Record<FactCategory, { kept: number; total: number }>;
  lost: LedgerEntry[];
  kept: LedgerEntry[];
  /**
   * The text-level score of the same span against the same text (shared/retention/text.ts:
   * the span's concrete strings searched as written), computed beside the ledger by code that
   * shares nothing with its extractor. Absent: a ledger stored before it was measured.
   */
  text?: TextRetention | null;
}
