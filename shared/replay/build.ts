/**
 * buildReplay: the exact message list the model would receive for a variant, for every
 * strategy, with token counts. Each strategy decides WHAT is visible (its summaries,
 * pointer, watermark, mask or dropped turns); normalize.ts then makes the list valid
 * for both the OpenAI and the Anthropic rules (see its header for how dangling tool
 * calls are converted, how same-side messages merge and how system turns are hoisted).
 * With no summaries (or no state) yet, every strategy shows the original turns.
 *
 * Pure (shared/): the window's Context view, the exports and the watermark pass's
 * validation all call this same function. It knows no strategy by name: each
 * strategy's `view` (shared/strategies/<s>.ts) says what the model sees.
 */
import { STRATEGY_DEFINITIONS } from '../strategies/index.js';
import { stageTurns } from '../strategies/mask-stage.js';
import type { StrategyName, VariantState } from '../strategies/types.js';
import type { ReplayMessage, SummaryInfo } from '../contract.js';
import { blockToText, type ContentBlock, type Turn } from '../model/turn.js';
import { normalizeReplay, type NormalizedMessage, type ReplayCandidate } from './normalize.js';

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

/**
 * The message list the model would receive, without token counts: for readers that need only
 * what is sent (the firing ledger's turn fates and context text), counting every message's
 * tokens would be most of the work. `buildReplay` is this plus the counts.
 */
export function buildReplayMessages(input: ReplayInput): NormalizedMessage[] {
  return normalizeReplay(viewCandidates(input));
}

/** The exact message list the model would receive for this variant, with token counts. */
export function buildReplay(input: ReplayInput): ReplayResult {
  return finishReplay(viewCandidates(input), input.countTokens);
}

/** What the strategy shows before normalization. */
function viewCandidates(input: ReplayInput): ReplayCandidate[] {
  const def = STRATEGY_DEFINITIONS[input.strategy];
  // Pre-stages (the optional masking first stage) apply to every turn the strategy shows.
  const turns = stageTurns(input.params, input.turns, input.countTokens);
  return def.view({ turns, summaries: input.summaries, state: input.state, params: input.params, countTokens: input.countTokens });
}
