/**
 * The pieces every strategy's view is built from (shared/strategies/<s>.ts `view`): a
 * turn as it was, a summary as a user message, synthetic assistant glue, and the views
 * several designs share (summaries at the place of the turns they cover; one rolling
 * summary; the watermark's synthetic turn; masked tool results; dropped turns).
 * normalize.ts then makes the list valid for OpenAI and Anthropic (build.ts).
 */
import type { VariantState } from '../strategies/types.js';
import type { SummaryInfo } from '../contract.js';
import type { ContentBlock, Turn } from '../model/turn.js';
import type { ReplayCandidate } from './normalize.js';

/** What a strategy's view receives: the session's turns (pre-stages applied), the variant's summaries with text, its state and parameters. */
export interface ViewInput {
  turns: readonly Turn[];
  summaries: readonly SummaryInfo[];
  state: VariantState;
  params: Record<string, number | string | boolean>;
  countTokens: (text: string) => number;
}

/** The assistant turn that follows a rolling summary (the rolling design's acknowledgement). */
export const ROLLING_ACKNOWLEDGEMENT = 'Understood. I have the summary of our previous conversation and will continue from there.';
/** The assistant turn inserted after a watermark summary when the next kept turn is the user's. */
export const WATERMARK_GLUE = 'Understood. I will continue from the compaction summary above.';

/** `[Summary of previous conversation]\n<summary>`: the rolling design's summary turn. */
export function rollingSummaryText(summary: string): string {
  return `[Summary of previous conversation]\n${summary}`;
}

/** The watermark design's synthetic user turn; it carries the watermark its pass left (where its span ends; `watermark=`, as the session compaction spec writes it). */
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
export const turnCandidate = (t: Turn, blocks: ContentBlock[] = t.blocks): ReplayCandidate => ({ role: t.role, origin: { kind: 'turn', turnId: t.id, position: t.position }, blocks });
export const summaryCandidate = (id: number, text: string): ReplayCandidate => ({ role: 'user', origin: { kind: 'summary', summaryId: id }, blocks: [textBlock(text)] });
export const syntheticAssistant = (text: string): ReplayCandidate => ({ role: 'assistant', origin: { kind: 'synthetic' }, blocks: [textBlock(text)] });

/** Number of leading system turns: the stable prefix every strategy keeps. */
export function stablePrefixEnd(turns: readonly Pick<Turn, 'role'>[]): number {
  let i = 0;
  while (i < turns.length && turns[i].role === 'system') i++;
  return i;
}

/** The current summary of a single-summary strategy: by the id in state, else the newest uncompacted one of that kind. */
export function currentSummary(summaries: readonly SummaryInfo[], id: number | null | undefined, kind: SummaryInfo['kind']): SummaryInfo | undefined {
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
export function coverCandidates(turns: readonly Turn[], summaries: readonly SummaryInfo[], visible: (s: SummaryInfo) => boolean): ReplayCandidate[] {
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

export function rollingCandidates(turns: readonly Turn[], summaries: readonly SummaryInfo[], state: VariantState): ReplayCandidate[] {
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
 * watermark (design version 1): the stable prefix, then one synthetic user turn per pass,
 * oldest first, each standing for the turns from the watermark before that pass to its own
 * end (the summary, or the truncation record after a summarizer failure), an assistant
 * turn when the next kept turn is the user's, then the kept turns.
 */
export function watermarkCandidates(turns: readonly Turn[], summaries: ReadonlyArray<Pick<SummaryInfo, 'id' | 'model' | 'text' | 'lastPosition'>>, watermark: number | undefined): ReplayCandidate[] {
  const prefixEnd = stablePrefixEnd(turns);
  if (summaries.length === 0 || watermark === undefined || watermark <= prefixEnd) return turns.map((t) => turnCandidate(t));
  const out: ReplayCandidate[] = turns.slice(0, prefixEnd).map((t) => turnCandidate(t));
  // Each pass's watermark: where the next summary's span starts; the newest one's is the state's.
  summaries.forEach((s, i) => {
    const after = i === summaries.length - 1 ? watermark : s.lastPosition + 1;
    out.push(summaryCandidate(s.id, watermarkSummaryText(s.model, after, s.text)));
  });
  // System turns are never summarized (they stay visible and are hoisted by the normalizer).
  for (const t of turns.slice(prefixEnd, watermark)) if (t.role === 'system') out.push(turnCandidate(t));
  const kept = turns.slice(watermark);
  const firstConversational = kept.find((t) => t.role !== 'system');
  if (firstConversational && firstConversational.role !== 'assistant') out.push(syntheticAssistant(WATERMARK_GLUE));
  for (const t of kept) out.push(turnCandidate(t));
  return out;
}

/**
 * masking: the turns with old tool results replaced by placeholders, once the variant's
 * pass has run (state.maskBoundary set); before that the model sees the original turns,
 * as with every other strategy. The rule is masking's own `maskToolResults`.
 */
export function maskedCandidates(turns: readonly Turn[], masked: readonly Turn[] | null): ReplayCandidate[] {
  return turns.map((t, i) => turnCandidate(t, masked ? masked[i].blocks : t.blocks));
}

/**
 * window / forgetting: the turns without the conversation turns in `state.droppedRanges`
 * (inclusive position ranges written by their passes). System turns inside a range
 * stay: no strategy drops the system prompt.
 */
export function droppedCandidates(turns: readonly Turn[], state: VariantState): ReplayCandidate[] {
  const ranges = state.droppedRanges ?? [];
  const out: ReplayCandidate[] = [];
  let r = 0;
  for (const t of turns) {
    while (r < ranges.length && ranges[r][1] < t.position) r++;
    const dropped = r < ranges.length && t.position >= ranges[r][0] && t.role !== 'system';
    if (!dropped) out.push(turnCandidate(t));
  }
  return out;
}
