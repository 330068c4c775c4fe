/**
 * buildReplay: the exact message list the model would receive for a variant, for every
 * strategy, with token counts. Each strategy decides WHAT is visible (its summaries,
 * pointer, watermark, mask or dropped turns); normalize.ts then makes the list valid
 * for both the OpenAI and the Anthropic rules (see its header for how dangling tool
 * calls are converted, how same-side messages merge and how system turns are hoisted).
 * With no summaries (or no state) yet, every strategy shows the original turns.
 *
 * Pure (shared/): the window's Context view, the exports and the watermark pass's
 * validation all call this same function.
 */
import { preMaskWindowOf } from '../strategies/mask-stage.js';
import { maskToolResults } from '../strategies/masking.js';
import type { StrategyName, VariantState } from '../strategies/types.js';
import type { ReplayMessage, SummaryInfo } from '../contract.js';
import { blockToText, type ContentBlock, type Turn } from '../model/turn.js';
import { normalizeReplay, type ReplayCandidate } from './normalize.js';
import { droppedTurnIds, maskedBlocks } from './baselines.js';

export interface ReplayInput {
  strategy: StrategyName;
  /** Every turn of the session, in position order. */
  turns: readonly Turn[];
  /** The variant's summaries (compacted ones included), with text. */
  summaries: readonly SummaryInfo[];
  state: VariantState;
  /** The variant's parameters (masking and the window baselines read theirs). */
  params: Record<string, number | string | boolean>;
  /** The session's tokenizer. */
  countTokens: (text: string) => number;
}

export interface ReplayResult {
  messages: ReplayMessage[];
  totalTokens: number;
}

/** The assistant turn that follows a rolling summary (the rolling design's acknowledgement). */
export const ROLLING_ACKNOWLEDGEMENT = 'Understood. I have the summary of our previous conversation and will continue from there.';
/** The assistant turn inserted after a watermark summary when the next kept turn is the user's. */
export const WATERMARK_GLUE = 'Understood. I will continue from the compaction summary above.';

/** `[Summary of previous conversation]\n<summary>`: the rolling design's summary turn. */
export function rollingSummaryText(summary: string): string {
  return `[Summary of previous conversation]\n${summary}`;
}

/** The watermark design's synthetic user turn. */
export function watermarkSummaryText(model: string, watermark: number, summary: string): string {
  return `<COMPACTION_SUMMARY model=${model} watermark=${watermark}>\n${summary}\n</COMPACTION_SUMMARY>`;
}

/** dag leaves/condensed summaries and two-line digests/chunks, as the model reads them. */
export function coverSummaryText(s: Pick<SummaryInfo, 'kind' | 'depth' | 'firstPosition' | 'lastPosition' | 'text'>): string {
  const range = `turns ${s.firstPosition}-${s.lastPosition}`;
  const head = s.kind === 'digest' ? `[Digest of ${range}]` : s.depth > 0 ? `[Summary of ${range}, depth ${s.depth}]` : `[Summary of ${range}]`;
  return `${head}\n${s.text}`;
}

const textBlock = (text: string): ContentBlock => ({ type: 'text', text });
const turnCandidate = (t: Turn, blocks: ContentBlock[] = t.blocks): ReplayCandidate => ({ role: t.role, origin: { kind: 'turn', turnId: t.id, position: t.position }, blocks });
const summaryCandidate = (id: number, text: string): ReplayCandidate => ({ role: 'user', origin: { kind: 'summary', summaryId: id }, blocks: [textBlock(text)] });
const syntheticAssistant = (text: string): ReplayCandidate => ({ role: 'assistant', origin: { kind: 'synthetic' }, blocks: [textBlock(text)] });

/** Number of leading system turns: the stable prefix every strategy keeps. */
export function stablePrefixEnd(turns: readonly Pick<Turn, 'role'>[]): number {
  let i = 0;
  while (i < turns.length && turns[i].role === 'system') i++;
  return i;
}

/** The current summary of a single-summary strategy: by the id in state, else the newest uncompacted one of that kind. */
function currentSummary(summaries: readonly SummaryInfo[], id: number | null | undefined, kind: SummaryInfo['kind']): SummaryInfo | undefined {
  if (id !== null && id !== undefined) {
    const byId = summaries.find((s) => s.id === id);
    if (byId) return byId;
  }
  let best: SummaryInfo | undefined;
  for (const s of summaries) if (s.kind === kind && !s.compacted && (!best || s.lastPosition > best.lastPosition || (s.lastPosition === best.lastPosition && s.id > best.id))) best = s;
  return best;
}

/**
 * Turn ids a summary stands for: its own turn edges plus those of its children,
 * recursively; the position range when the edges are missing.
 */
function coveredTurnIds(s: SummaryInfo, byId: Map<number, SummaryInfo>, turns: readonly Turn[], out: Set<number>): void {
  if (s.turnIds.length === 0 && s.childIds.length === 0) {
    // System turns are never summarized by any strategy (shared/strategies/spans.ts).
    for (const t of turns) if (t.position >= s.firstPosition && t.position <= s.lastPosition && t.role !== 'system') out.add(t.id);
    return;
  }
  for (const id of s.turnIds) out.add(id);
  for (const c of s.childIds) {
    const child = byId.get(c);
    if (child) coveredTurnIds(child, byId, turns, out);
  }
}

/**
 * dag and two-line: the uncompacted summaries in chronological order, each at the place
 * of the first turn it covers, and the turns no visible summary covers. (When every
 * summary covers a prefix of the evictable turns, as both designs produce, this is
 * exactly "summaries, then uncovered turns".)
 */
function coverCandidates(turns: readonly Turn[], summaries: readonly SummaryInfo[], visible: (s: SummaryInfo) => boolean): ReplayCandidate[] {
  const byId = new Map(summaries.map((s) => [s.id, s]));
  const shown = summaries.filter(visible).sort((a, b) => a.firstPosition - b.firstPosition || b.depth - a.depth || a.id - b.id);
  const covered = new Set<number>();
  for (const s of shown) coveredTurnIds(s, byId, turns, covered);
  const out: ReplayCandidate[] = [];
  let k = 0;
  for (const t of turns) {
    while (k < shown.length && shown[k].firstPosition <= t.position) {
      out.push(summaryCandidate(shown[k].id, coverSummaryText(shown[k])));
      k++;
    }
    if (!covered.has(t.id)) out.push(turnCandidate(t));
  }
  for (; k < shown.length; k++) out.push(summaryCandidate(shown[k].id, coverSummaryText(shown[k])));
  return out;
}

function rollingCandidates(turns: readonly Turn[], summaries: readonly SummaryInfo[], state: VariantState): ReplayCandidate[] {
  const summary = currentSummary(summaries, state.rollingSummaryId, 'rolling');
  const pointer = state.pointer ?? 0;
  if (!summary || pointer <= 0) return turns.map((t) => turnCandidate(t));
  const out: ReplayCandidate[] = turns.filter((t) => t.role === 'system').map((t) => turnCandidate(t));
  out.push(summaryCandidate(summary.id, rollingSummaryText(summary.text)));
  out.push(syntheticAssistant(ROLLING_ACKNOWLEDGEMENT));
  // The pointer counts NON-system turns: skip that many of them.
  let seen = 0;
  for (const t of turns) {
    if (t.role === 'system') continue;
    if (seen++ >= pointer) out.push(turnCandidate(t));
  }
  return out;
}

/**
 * watermark: the stable prefix, one synthetic user turn standing for everything up to
 * the watermark (the summary, or the truncation record after a summarizer failure),
 * an assistant turn when the next kept turn is the user's, then the kept turns.
 */
export function watermarkCandidates(turns: readonly Turn[], summary: Pick<SummaryInfo, 'id' | 'model' | 'text'> | undefined, watermark: number | undefined): ReplayCandidate[] {
  const prefixEnd = stablePrefixEnd(turns);
  if (!summary || watermark === undefined || watermark <= prefixEnd) return turns.map((t) => turnCandidate(t));
  const out: ReplayCandidate[] = turns.slice(0, prefixEnd).map((t) => turnCandidate(t));
  out.push(summaryCandidate(summary.id, watermarkSummaryText(summary.model, watermark, summary.text)));
  // System turns are never summarized (they stay visible and are hoisted by the normalizer).
  for (const t of turns.slice(prefixEnd, watermark)) if (t.role === 'system') out.push(turnCandidate(t));
  const kept = turns.slice(watermark);
  const firstConversational = kept.find((t) => t.role !== 'system');
  if (firstConversational && firstConversational.role !== 'assistant') out.push(syntheticAssistant(WATERMARK_GLUE));
  for (const t of kept) out.push(turnCandidate(t));
  return out;
}

function candidatesFor(input: ReplayInput): ReplayCandidate[] {
  const { strategy, turns, summaries, state, params } = input;
  switch (strategy) {
    case 'dag':
      return coverCandidates(turns, summaries, (s) => !s.compacted);
    case 'two-line':
      return coverCandidates(turns, summaries, (s) => !s.compacted && (s.kind === 'digest' || s.kind === 'chunk'));
    case 'rolling':
      return rollingCandidates(turns, summaries, state);
    case 'watermark':
      return watermarkCandidates(turns, currentSummary(summaries, state.watermarkSummaryId, 'watermark'), state.watermark);
    case 'masking': {
      const masked = maskedBlocks(turns, state, params);
      return turns.map((t) => turnCandidate(t, masked.get(t.id) ?? t.blocks));
    }
    case 'window':
    case 'forgetting': {
      const dropped = droppedTurnIds(strategy, turns, state, params);
      return turns.filter((t) => !dropped.has(t.id)).map((t) => turnCandidate(t));
    }
    default: {
      const _exhaustive: never = strategy;
      return _exhaustive;
    }
  }
}

/** Token count of a message's blocks, counted the way turns are counted at import. */
export function messageTokens(blocks: readonly ContentBlock[], countTokens: (text: string) => number): number {
  let n = 0;
  for (const b of blocks) n += countTokens(blockToText(b));
  return n;
}

/** Normalizes candidates and counts tokens: the last step shared by every strategy. */
export function finishReplay(candidates: readonly ReplayCandidate[], countTokens: (text: string) => number): ReplayResult {
  let totalTokens = 0;
  const messages = normalizeReplay(candidates).map((m): ReplayMessage => {
    const tokens = messageTokens(m.blocks, countTokens);
    totalTokens += tokens;
    return m.parts ? { role: m.role, origin: m.origin, parts: m.parts, blocks: m.blocks, tokens } : { role: m.role, origin: m.origin, blocks: m.blocks, tokens };
  });
  return { messages, totalTokens };
}

/** The exact message list the model would receive for this variant, with token counts. */
export function buildReplay(input: ReplayInput): ReplayResult {
  // The optional masking first stage of the summarizing strategies (compaction/mask-stage.ts)
  // applies to every turn the strategy shows, like a condenser earlier in the pipeline.
  const preMask = input.strategy === 'masking' ? null : preMaskWindowOf(input.params);
  const turns = preMask === null ? input.turns : maskToolResults(input.turns, preMask, input.countTokens);
  return finishReplay(candidatesFor(turns === input.turns ? input : { ...input, turns }), input.countTokens);
}
