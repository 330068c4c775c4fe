/**
 * "Which facts survive in one and not the other" (Compare's facts table): at the compared call, the
 * facts of every turn that any column (the variants and the source tool's own compaction)
 * does not send as recorded — summarized, masked or dropped — and, per column, whether each
 * fact survives in what that column sends (shared/facts `survivesIn` over the column's
 * whole context text). A fact one column summarized away may survive in another because it
 * kept the turn verbatim, or because its summary says it. The `none` baseline sends every
 * turn, so it keeps every fact and is left out of the table.
 */
import type { Turn } from '../model/turn.js';
import { contextText } from '../facts/context.js';
import { extractFacts } from '../facts/extract.js';
import { ledgerFacts, salience, survivesIn, visibleIndex } from '../facts/ledger.js';
import { turnsToItems } from '../model/items.js';
import type { TurnFates } from './fates.js';
import type { FactsComparison } from './types.js';
import { messagesText, spanStrings, textRetentionOf } from '../retention/text.js';

/** At most this many rows are listed (by salience); the counts cover every fact. */
export const MAX_FACT_ROWS = 300;

export interface FactsColumn {
  key: string;
  fates: TurnFates;
  /** What the column sends at the call, as message blocks. */
  sent: ReadonlyArray<{ blocks: Turn['blocks'] }>;
}

const notSent = (f: string) => f === 'summarized' || f === 'masked' || f === 'dropped';

export function compareFacts(turns: readonly Pick<Turn, 'position' | 'role' | 'blocks'>[], columns: readonly FactsColumn[]): FactsComparison {
  const compacted = turns.filter((_, i) => columns.some((c) => notSent(c.fates.fates[i])));
  const keys = columns.map((c) => c.key);
  if (compacted.length === 0) return { columnKeys: keys, compactedTurns: 0, total: 0, kept: keys.map(() => 0), differing: 0, rows: [], textTotal: 0, textKept: keys.map(() => 0) };
  // The text-level score of the same turns per column, by code that shares nothing with the ledger.
  const strings = spanStrings(compacted);
  const textKept = columns.map((c) => textRetentionOf(strings, messagesText(c.sent)).kept);
  const span = extractFacts(turnsToItems(compacted));
  const seen = columns.map((c) => visibleIndex(contextText(c.sent)));
  const scored = ledgerFacts(span)
    .map((f) => ({ f, salience: salience(f, span.itemCount), survives: seen.map((v) => survivesIn(f, v)) }))
    .sort((a, b) => b.salience - a.salience || a.f.firstItem - b.f.firstItem);
  const kept = keys.map((_, i) => scored.filter((r) => r.survives[i]).length);
  const differs = (s: boolean[]) => s.some((x) => x !== s[0]);
  return {
    columnKeys: keys,
    compactedTurns: compacted.length,
    total: scored.length,
    kept,
    differing: scored.filter((r) => differs(r.survives)).length,
    rows: scored.slice(0, MAX_FACT_ROWS).map(({ f, salience: s, survives }) => ({
      category: f.category,
      text: f.text,
      ...(f.detail ? { detail: f.detail } : {}),
      salience: Math.round(s * 100) / 100,
      survives,
      differs: differs(survives),
    })),
    textTotal: strings.length,
    textKept,
  };
}
