/**
 * The SQLite-backed VariantStore a pass writes through (shared/passes/context.ts): the
 * variant's live summaries and state, and commits that run under the session's write
 * lock (locks.ts) inside ONE `BEGIN IMMEDIATE` transaction, so "re-read, compare,
 * write" is atomic across the window, the worker and the CLI.
 */
import { writeTransaction, type DB } from '../store/db.js';
import { getSummaryText, getVariant, insertSummary, listExistingSummaries, markCompacted, setVariantState } from '../store/variants.js';
import type { VariantState } from '../../shared/strategies/types.js';
import type { VariantStore, VariantWriter } from '../../shared/passes/context.js';
import { withSessionLock } from './locks.js';
import { recordSummaryLedger } from './summary-ledger.js';
import { getOwnFacts } from '../store/summary-facts.js';

export function sqliteVariantStore(db: DB, o: { sessionId: number; variantId: number; runId: number }): VariantStore {
  const state = (): VariantState => getVariant(db, o.variantId)?.state ?? {};
  const summaries = () => listExistingSummaries(db, o.variantId);
  const writer: VariantWriter = {
    summaries,
    state,
    insertSummary: (s) => {
      const id = insertSummary(db, { ...s, variantId: o.variantId, runId: o.runId });
      // The loss ledger is computed as the summary is written, in the same transaction.
      recordSummaryLedger(db, id, s.facts ?? null);
      return id;
    },
    markCompacted: (ids) => markCompacted(db, ids),
    setState: (next) => setVariantState(db, o.variantId, next),
  };
  return {
    summaries,
    state,
    summaryText: (id) => getSummaryText(db, o.variantId, id),
    summaryFacts: (id) => getOwnFacts(db, id),
    commit: (fn) => withSessionLock(o.sessionId, () => writeTransaction(db, () => fn(writer))),
  };
}
