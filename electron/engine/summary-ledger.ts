/**
 * The loss ledger computed when a summary is written: the facts of the span
 * the summary covers (shared/facts) and which of them survive in its text, stored in
 * `summary_facts` (electron/store/summary-facts.ts), with the text-level score of the same span
 * against the same text (shared/retention/text.ts). Also the baseline: the ledger of a
 * source tool's own compaction summary (Claude Code's) over the turns it replaced.
 */
import type { DB } from '../store/db.js';
import { listTurns, type ExternalCompaction } from '../store/turns.js';
import { getSpanFacts, insertSummaryFacts, summaryForLedger } from '../store/summary-facts.js';
import { turnsToItems } from '../../shared/model/items.js';
import { extractTurnFacts } from '../../shared/facts/extract.js';
import { extractFacts, mergeFactSets, topLedgerOf, type FactSet, type SummaryLedger } from '../../shared/facts/index.js';
import { firingLedger } from '../../shared/replay/firing-ledger.js';
import type { StrategyName, VariantState } from '../../shared/strategies/types.js';
import type { Turn } from '../../shared/model/turn.js';
import { textRetention, type SpanString } from '../../shared/retention/text.js';

/** The facts of turns [from, to] (positions, inclusive) of a session. */
export function turnRangeFacts(db: DB, sessionId: number, from: number, to: number): FactSet {
  return extractFacts(turnsToItems(listTurns(db, sessionId, { from, to: to + 1 })));
}

/**
 * A replay's ledgers (electron/engine/replay.ts): the span facts of the summaries recorded so
 * far in the run, kept in memory instead of stored (migration 014: no pass condenses a
 * replay's summary, so they are read only here), and the session's turns, read once.
 */
export interface ReplayLedgerMemory {
  spanFacts: Map<number, FactSet>;
  /** Every turn of the session, in position order. */
  turns: readonly Turn[];
  /** The replay's summaries as summaryForLedger reads them, by stored id: what the replay just wrote is not read back. */
  summaries?: ReadonlyMap<number, LedgerSummary>;
  /** Each turn's strings for the text-level score (shared/retention/text.ts), read once per replay. */
  textMemo?: WeakMap<Pick<Turn, 'role' | 'blocks'>, SpanString[]>;
}

/** What a summary's ledger reads of it (summaryForLedger). */
export type LedgerSummary = NonNullable<ReturnType<typeof summaryForLedger>>;

/** Turns [from, to] (positions, inclusive): from the replay's turns already read when they are the positions asked for. */
function rangeTurns(db: DB, sessionId: number, from: number, to: number, memory?: ReplayLedgerMemory): readonly Turn[] {
  const turns = memory?.turns;
  if (turns && turns[from]?.position === from && turns[to]?.position === to) return turns.slice(from, to + 1);
  return listTurns(db, sessionId, { from, to: to + 1 });
}

/** turnRangeFacts from turns already read when they are the positions asked for. */
function rangeFacts(db: DB, sessionId: number, from: number, to: number, memory?: ReplayLedgerMemory): FactSet {
  const turns = memory?.turns;
  if (turns && turns[from]?.position === from && turns[to]?.position === to) return extractTurnFacts(turns.slice(from, to + 1));
  return turnRangeFacts(db, sessionId, from, to);
}

/**
 * The span facts of a summary: its children's span facts merged (a condensation re-reads no
 * turns) followed by the facts of the turns it covers directly; a summary whose child's span
 * facts were not kept is read from its whole turn range instead.
 */
function spanFactsOf(db: DB, s: LedgerSummary, memory?: ReplayLedgerMemory): FactSet {
  const parts: FactSet[] = [];
  for (const c of s.childIds) {
    const f = memory?.spanFacts.get(c) ?? getSpanFacts(db, c);
    if (!f) return rangeFacts(db, s.sessionId, s.firstPosition, s.lastPosition, memory);
    parts.push(f);
  }
  if (s.turnPositions.length > 0) parts.push(rangeFacts(db, s.sessionId, Math.min(...s.turnPositions), Math.max(...s.turnPositions), memory));
  if (parts.length === 0) return rangeFacts(db, s.sessionId, s.firstPosition, s.lastPosition, memory);
  if (parts.length === 1) return parts[0];
  // A replay's child is condensed once (into this summary): its span facts are taken over, not copied.
  const first = s.childIds.length > 0 && memory?.spanFacts.get(s.childIds[0]) === parts[0];
  if (first) for (const c of s.childIds) memory!.spanFacts.delete(c);
  return mergeFactSets(parts, { intoFirst: first });
}

/**
 * Computes and stores the ledger of a summary just inserted (inside the caller's
 * transaction), with the facts its summarizer says it carries (own facts: what a
 * later condensation merges; null for model summaries). With a replay's `memory`, the span
 * facts are kept there and not stored.
 */
export function recordSummaryLedger(db: DB, summaryId: number, ownFacts: FactSet | null = null, memory?: ReplayLedgerMemory): SummaryLedger | null {
  const s = memory?.summaries?.get(summaryId) ?? summaryForLedger(db, summaryId);
  if (!s) return null;
  const span = spanFactsOf(db, s, memory);
  const ledger = topLedgerOf(span, s.text);
  ledger.text = textRetention(rangeTurns(db, s.sessionId, s.firstPosition, s.lastPosition, memory), s.text, memory?.textMemo);
  memory?.spanFacts.set(summaryId, span);
  insertSummaryFacts(db, { summaryId, spanFacts: memory ? null : span, ownFacts, ledger });
  return ledger;
}

/**
 * The ledger of a variant that keeps no summary (window, masking, forgetting: a model-free
 * compaction drops or masks turns), as its pass leaves it: every turn its state hides or
 * masks, against the whole context the model receives under that state — the rule of a
 * replay firing (shared/replay/firing-ledger.ts) from the uncompacted transcript. So the
 * figure is the variant's, like a summarizing variant's sum over its live summaries, and a
 * second pass that changes nothing reports the same. Null when the state hides nothing.
 */
export function modelFreePassLedger(o: { strategy: StrategyName; params: Record<string, number | string | boolean>; turns: readonly Turn[]; state: VariantState; countTokens: (text: string) => number }): SummaryLedger | null {
  const fl = firingLedger({ strategy: o.strategy, params: o.params, turns: o.turns, before: { summaries: [], state: {} }, after: { summaries: [], state: o.state }, countTokens: o.countTokens });
  return fl ? fl.ledger : null;
}

/**
 * The baseline: the ledger of the source tool's own summary (e.g. Claude Code's compact
 * summary) over the turns it replaced. Computed on read (imported rows never change, so
 * it is memoized per database and compaction).
 */
const baselineMemo = new WeakMap<DB, Map<string, SummaryLedger | null>>();
export function externalCompactionLedger(db: DB, c: Pick<ExternalCompaction, 'sessionId' | 'summaryText' | 'firstPosition' | 'lastPosition' | 'boundaryPosition'>): SummaryLedger | null {
  let memo = baselineMemo.get(db);
  if (!memo) baselineMemo.set(db, (memo = new Map()));
  const key = `${c.sessionId}:${c.boundaryPosition}`;
  if (memo.has(key)) return memo.get(key)!;
  const ledger = c.summaryText ? topLedgerOf(turnRangeFacts(db, c.sessionId, c.firstPosition, c.lastPosition), c.summaryText) : null;
  if (ledger) ledger.text = textRetention(rangeTurns(db, c.sessionId, c.firstPosition, c.lastPosition), c.summaryText!);
  memo.set(key, ledger);
  return ledger;
}
