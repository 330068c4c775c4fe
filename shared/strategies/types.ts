/**
 * Types shared by every compaction planner (pure, in shared/strategies/) and the
 * passes that execute their plans (electron/engine/). A plan is a pure function of
 * (turn metas, the variant's existing summaries, the variant's state, parameters).
 */
import type { TurnMeta } from '../model/turn.js';
import type { MeasureInput } from '../usage/measure.js';

export const STRATEGIES = ['dag', 'rolling', 'watermark', 'two-line', 'masking', 'window', 'forgetting', 'codex', 'claude-code'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

export type SummaryKind = 'leaf' | 'condensed' | 'rolling' | 'watermark' | 'digest' | 'chunk' | 'native';
export type SummaryTier = 'normal' | 'aggressive' | 'fallback' | 'truncation' | 'digest';

/** A summary of the variant as planners see it (no text needed to plan). */
export interface ExistingSummary {
  id: number;
  kind: SummaryKind;
  depth: number;
  tokenCount: number;
  charCount: number;
  /** Folded into a parent or superseded: no longer part of what the model sees. */
  compacted: boolean;
  /** Turn positions covered (inclusive), through children for condensed summaries. */
  firstPosition: number;
  lastPosition: number;
  /** Child summary ids (condensed) in order; empty for leaves. */
  childIds: number[];
}

/**
 * Strategy state kept on the variant between passes (variants.state JSON).
 * Each strategy reads only its own fields.
 */
export interface VariantState {
  /** rolling: number of non-system turns already summarized. */
  pointer?: number;
  /** rolling: id of the current rolling summary row. */
  rollingSummaryId?: number | null;
  /** watermark: position of the first turn NOT replaced by the summary (only moves forward). */
  watermark?: number;
  /** watermark: USD spent by summarizer calls of this variant so far. */
  spentUsd?: number;
  /** watermark: id of the current watermark summary. */
  watermarkSummaryId?: number | null;
  /** two-line: position up to which (exclusive) the history is covered by digest/chunk summaries. */
  coveredUntil?: number;
  /**
   * window / forgetting: position ranges [first, last] (inclusive, sorted, disjoint) the
   * model no longer sees. System turns inside a range are NOT dropped (every strategy
   * keeps the system prompt); the replay omits only the conversation turns in them.
   */
  droppedRanges?: Array<[number, number]>;
  /**
   * masking: tool results answering a tool_use at a position < maskBoundary are masked
   * (the start of the last `maskWindow` tool cycles, see shared/strategies/masking.ts).
   * The replay may recompute it with `maskToolResults(turns, maskWindow)`; both agree.
   */
  maskBoundary?: number;
  /**
   * codex / claude-code (shared/strategies/native.ts): conversation turns at positions < nativeCut
   * are replaced by the one live native summary (except the user messages codex keeps).
   */
  nativeCut?: number;
  /** codex / claude-code: id of the live native summary. */
  nativeSummaryId?: number | null;
  /** codex: transcript tokens of the user messages kept verbatim before the cut (recomputable from the turns; kept so the view is O(1)). */
  nativeKeptTokens?: number;
}

/**
 * True when `key` is the state's only field: a step may then build `{ [key]: value }`
 * instead of `{ ...state, [key]: value }` (the same object, keys in the same order; states are
 * plain JSON data, so for-in sees every key the spread would copy). Model-free
 * steps write one field before nearly every call, and V8's object spread of these small
 * states cost ~20 ms per 50,000 calls of a projected timeline.
 */
export function isOnlyField(state: VariantState, key: keyof VariantState): boolean {
  for (const k in state) if (k !== key) return false;
  return true;
}

/** A boundary drawn on the turn list. `position` = index of the first turn on the far side. */
export interface PlanBoundary {
  kind: 'fresh-tail' | 'kept-window' | 'preserved-tail' | 'watermark' | 'pointer' | 'prefix-end' | 'warning' | 'emergency' | 'mask-window';
  position: number;
  label: string;
}

/** A span of turns the pass will summarize (or mask / drop / truncate). Positions inclusive. */
export interface PlanSpan {
  /** Projected node id: 'p0', 'p1', ... unique within one plan. */
  id: string;
  purpose: 'leaf' | 'rolling' | 'watermark' | 'chunk' | 'digest' | 'mask' | 'drop' | 'native';
  firstPosition: number;
  lastPosition: number;
  turnIds: number[];
  tokens: number;
  chars: number;
  /** Existing summary passed as prior context (dag leaf continuity, rolling). */
  priorSummaryId?: number | null;
  /** Target size of the summary in tokens. */
  targetTokens: number;
}

/** A condensation the pass will perform: children (existing 's<id>' or projected 'p<k>') into one parent. */
export interface PlanCondense {
  id: string;
  depth: number;
  childIds: string[];
  targetTokens: number;
}

export interface ProjectedNode {
  /** 's<id>' for an existing summary, 'p<k>' for one this plan would create. */
  id: string;
  depth: number;
  projected: boolean;
  firstPosition: number;
  lastPosition: number;
  tokens: number;
  compacted: boolean;
}

export interface ProjectedDag {
  nodes: ProjectedNode[];
  /** parent -> child edges (summary to summary); leaves' turn coverage is in first/lastPosition. */
  edges: Array<{ source: string; target: string }>;
}

export interface TriggerDecision {
  compact: boolean;
  reason: string;
  /** tokens / budget (or context window) where meaningful. */
  pressure?: number;
  level?: 'none' | 'warning' | 'emergency' | 'soft' | 'hard';
}

export interface Plan<P = Record<string, number | string>> {
  strategy: StrategyName;
  params: P;
  trigger: TriggerDecision;
  boundaries: PlanBoundary[];
  spans: PlanSpan[];
  condense: PlanCondense[];
  dag: ProjectedDag;
  /** Tokens the model sees now, and after this plan (summaries at their target size). */
  tokensBefore: number;
  tokensAfter: number;
  /** Context budget line for the gauge (model window, hard cap...). */
  budget: number | null;
  /**
   * tokensBefore and tokensAfter as the context measure counts the whole context (what the
   * thresholds compare with: shared/usage/measure.ts), and the measure's name; set by
   * planPrepared, which every caller plans through.
   */
  measured?: { before: number; after: number; measure: string };
}

export interface PlanInput<P> extends MeasureInput {
  turns: readonly TurnMeta[];
  summaries: readonly ExistingSummary[];
  state: VariantState;
  params: P;
  // From MeasureInput (shared/usage/measure.ts): `measure`, the variant's context measure, and
  // `reported`, the source's figure for the call this input stands at. Every token threshold
  // is compared with readInput(input, view) (whole context) or measurePart (a stretch of it).
}
