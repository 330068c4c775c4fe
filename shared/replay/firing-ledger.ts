/**
 * The loss ledger of one firing ("which facts of the compacted span survive in
 * what the model sees after it"). The compacted span is every turn before the call whose
 * treatment the firing changed (it was sent verbatim and now is summarized, masked or
 * dropped; or it moved from one summary into another, a condensation): its facts are read
 * from those turns, and matched against the WHOLE context the model receives at the call
 * right after the firing (summaries and the verbatim turns alike, buildReplay's messages).
 * A fact a summary dropped but a later verbatim turn repeats is therefore kept.
 *
 * The per-summary ledger (electron/engine/summary-ledger.ts) stays the summary's own: its
 * span against its text alone.
 */
import type { SummaryInfo } from '../contract.js';
import type { Turn } from '../model/turn.js';
import type { StrategyName, VariantState } from '../strategies/types.js';
import { turnFates } from '../compare/fates.js';
import { contextText } from '../facts/context.js';
import { extractTurnFacts } from '../facts/extract.js';
import { topLedgerOf } from '../facts/ledger.js';
import type { FactSet, SummaryLedger } from '../facts/types.js';
import { buildReplayMessages } from './build.js';
import { messagesText, textRetention, type SpanString } from '../retention/text.js';

/** The variant at one moment: the summaries it has (with their compacted flags then) and its state. */
export interface ViewMoment {
  summaries: readonly SummaryInfo[];
  state: VariantState;
  /**
   * The call position the moment was taken at (default: all of the ledger's turns): its view is
   * built over the turns before it, and later turns count as sent verbatim then. A grouped
   * ledger's "before" is the previous measured firing, at ITS position: a view that derives
   * what it hides from the turns themselves (masking's window of tool cycles) would otherwise
   * hide at the earlier moment exactly what it hides now.
   */
  end?: number;
  /** The moment's view and the turns' fates under it, when already built (`buildMomentView`): a grouped ledger's "before" is the previous ledger's "after". */
  built?: MomentView;
}

/** What the model receives at a moment (buildReplayMessages) and each turn's fate in it (turnFates). */
export interface MomentView {
  messages: ReturnType<typeof buildReplayMessages>;
  fates: ReturnType<typeof turnFates>;
}

/** The view of `m` over `turns` (the turns before its call) and the turns' fates in it. No token count is read. */
export function buildMomentView(o: Pick<FiringLedgerInput, 'strategy' | 'params' | 'countTokens'>, m: ViewMoment, turns: readonly Turn[]): MomentView {
  const messages = buildReplayMessages({ strategy: o.strategy, turns, summaries: m.summaries, state: m.state, params: o.params, countTokens: o.countTokens });
  return { messages, fates: turnFates(turns, messages, m.summaries) };
}

export interface FiringLedgerInput {
  strategy: StrategyName;
  params: Record<string, number | string | boolean>;
  /** The turns before the call the firing ran at: positions 0..n-1. */
  turns: readonly Turn[];
  before: ViewMoment;
  after: ViewMoment;
  countTokens: (text: string) => number;
  /** The facts of the compacted turns (default extractTurnFacts; a replay passes one turnFactStream for all its ledgers). */
  factsOf?: (turns: readonly Turn[]) => FactSet;
  /** Each turn's strings for the text-level score, kept across a replay's ledgers. */
  textMemo?: WeakMap<Pick<Turn, 'role' | 'blocks'>, SpanString[]>;
}

export interface FiringLedger {
  /** Positions of the turns the firing compacted, ascending. */
  compactedPositions: number[];
  /** Retention and the top lost and kept facts (summaryLedgerOf ∘ ledgerOf). */
  ledger: SummaryLedger;
}

/** Null when the firing changed the treatment of no turn (an abandoned commit). */
export function firingLedger(o: FiringLedgerInput): FiringLedger | null {
  const beforeTurns = o.before.end === undefined || o.before.end >= o.turns.length ? o.turns : o.turns.slice(0, Math.max(0, o.before.end));
  // Each view built once: a moment that carries its view (the previous ledger's after) is not built again.
  const b = (o.before.built ?? buildMomentView(o, o.before, beforeTurns)).fates;
  const afterView = o.after.built ?? buildMomentView(o, o.after, o.turns);
  const a = afterView.fates;
  const afterMessages = afterView.messages;
  const compacted: Turn[] = [];
  o.turns.forEach((t, i) => {
    const now = a.fates[i];
    if (now === 'verbatim' || now === 'reshaped') return;
    // A turn after the earlier moment was sent verbatim then.
    const then = i < beforeTurns.length ? b.fates[i] : 'verbatim';
    if (now !== then || a.summaryIds[i] !== (i < beforeTurns.length ? b.summaryIds[i] : null)) compacted.push(t);
  });
  if (compacted.length === 0) return null;
  const ledger = topLedgerOf((o.factsOf ?? extractTurnFacts)(compacted), contextText(afterMessages));
  // The text-level score beside it: the same turns' strings, as text, in the same context.
  ledger.text = textRetention(compacted, messagesText(afterMessages), o.textMemo);
  return { compactedPositions: compacted.map((t) => t.position), ledger };
}

/** At most this many ledgers per replay. */
export const MAX_FIRING_LEDGERS = 64;
/** The positions of the ledgered firings sum to at most this many times the session's turns. */
export const FIRING_LEDGER_BUDGET = 2;

/**
 * Which firings of a replay carry a ledger. Each ledger builds the whole context before and
 * after its firing (O(turns so far)), so measuring every firing is quadratic for strategies
 * that fire often (window and masking at nearly every call; rolling re-summarizes the whole
 * history at each firing). Every firing is measured while there are at most MAX_FIRING_LEDGERS
 * and their positions sum to at most FIRING_LEDGER_BUDGET × the session's turns; beyond that
 * the session is cut into G equal stretches of turns (G = min(MAX_FIRING_LEDGERS, firings,
 * 2 × budget − 1), so the measured positions sum to at most budget × turns) and the last
 * firing of each stretch carries ONE ledger over everything the stretch's firings compacted,
 * against the context right after it; the other firings have none. The last firing is always
 * measured. True where a firing closes a group.
 */
export function ledgerGroupEnds(positions: readonly number[], sessionTurns: number): boolean[] {
  const f = positions.length;
  const total = positions.reduce((n, p) => n + p, 0);
  if (f <= MAX_FIRING_LEDGERS && total <= FIRING_LEDGER_BUDGET * sessionTurns) return positions.map(() => true);
  const g = Math.max(1, Math.min(MAX_FIRING_LEDGERS, f, 2 * FIRING_LEDGER_BUDGET - 1));
  const stretch = (p: number) => Math.min(g, Math.max(1, Math.ceil((p * g) / Math.max(1, sessionTurns))));
  return positions.map((p, i) => i === f - 1 || stretch(positions[i + 1]) > stretch(p));
}

