import type { ParamSpec } from './params.js';
import type { SpanIndex } from './spans.js';
import type { Plan, PlanInput, StrategyName, VariantState } from './types.js';
import type { TurnMeta } from '../model/turn.js';
import type { ContextMeasure } from '../usage/measure.js';
import type { ReplayCandidate } from '../replay/normalize.js';
import type { ViewInput } from '../replay/candidates.js';
import type { PromptTemplateId } from '../summarize/prompts.js';

/**
 * What the live replay (shared/replay/live.ts) measures before each model call, cheaply:
 * the tokens the model would receive (the variant's view + the call's overhead) and the
 * number of conversation turns in that view.
 */
export interface LiveMeasure {
  /** The context by the variant's context measure (shared/usage/measure.ts): what whole-context thresholds compare with. */
  contextTokens: number;
  /** Transcript tokens of the view (no overhead). */
  viewTokens: number;
  /** The variant's context measure, for thresholds on a stretch of the view (measurePart). */
  measure: ContextMeasure;
  /** The call's position (the turns before it are what the model receives) and the session's conversation-token prefix sums: a stretch's tokens in O(1). */
  end: number;
  convTokenPrefix: Float64Array;
  viewTurns: number;
  /** Tool cycles completed since the strategy last fired (masking re-masks on each). */
  newToolCycles: number;
}

/**
 * What a model-free strategy's pass would commit before one model call, computed without
 * the pass machinery (`live.step`). The pass's reason and stats are built from `facts` by
 * `live.describeStep` only when read (plain data, no closure per call: a window fires at
 * every one of 50,000 calls).
 */
export interface LiveStep {
  /** The state the pass would write. */
  state: VariantState;
  /** Tokens of the view under that state (what `live.visible` would say). */
  visibleTokens: number;
  /** The strategy's own numbers for describeStep, where the state and the position do not give them. */
  facts?: Readonly<Record<string, number | string>>;
}

/**
 * One strategy, defined once: its parameters, its pure planner, what the model sees
 * under it, and how the live replay checks it. Its pass (what needs a summarizer or a
 * commit) is shared/passes/<name>.ts; shared/strategies/index.ts registers both.
 */
export interface StrategyRules<P extends Record<string, number> = Record<string, number>> {
  name: StrategyName;
  label: string;
  /** One paragraph: what it does and which published design it follows. */
  description: string;
  specs: readonly ParamSpec[];
  /**
   * The model prompt templates its pass asks for (shared/summarize/prompts.ts), in the order
   * the window lists them; absent for model-free strategies. Only these templates' overrides
   * enter the variant's prompt version.
   */
  prompts?: readonly PromptTemplateId[];
  /**
   * Whether its summaries go through the fallback ladder by default (aggressive retry, then
   * the extractive summary where the pass allows it; electron/summarize/tiers.ts). Default
   * true; the variant's summarizer settings may say otherwise (contract `fallbackLadder`).
   */
  fallbackLadder?: boolean;
  /** Pure and deterministic; params already resolved against specs. */
  plan(input: PlanInput<P>): Plan<P>;
  /** The messages the model sees for the variant's summaries and state (before normalization). */
  view(input: ViewInput): ReplayCandidate[];
  live: {
    /**
     * A NECESSARY condition for the trigger to fire at this call (no false negatives):
     * when false the replay does not consult the planner, so a replay of 100,000 turns
     * plans only near firings. The planner's trigger is the rule; this only prunes.
     */
    mayFire(m: LiveMeasure, params: P, state: VariantState): boolean;
    /** Context lines to draw on the timeline (tokens incl. overhead), e.g. the trigger threshold. */
    lines(params: P): Array<{ label: string; tokens: number }>;
    /**
     * Tokens of the view (transcript units, no overhead) given the variant's summaries and
     * state. Default: the planner's `tokensBefore`. Strategies whose planner recomputes from
     * scratch every time (masking, window) say what their stored state leaves visible.
     */
    visible?(input: PlanInput<P>): number;
    /**
     * Model-free strategies (window, masking, forgetting) fire at almost every call: their
     * pass as a synchronous step on the turns before the call, or null where the pass would
     * skip. `ix` is the index of those turns (a prefix view of the session's, O(1)); `turns()`
     * lists them (an array the loop grows to the call — call it only if the index is not
     * enough: growing it costs more than a window's whole step). The live loop uses it
     * instead of the pass (no context, commit or promise per call) unless a pre-stage is on;
     * it must give exactly the pass's state, reason and stats (test/node/replay-fast.test.ts
     * checks it).
     */
    step?(ix: SpanIndex, params: P, state: VariantState, turns: () => readonly TurnMeta[]): LiveStep | null;
    /**
     * The pass's reason and stats for a step (required with `step`), read after the loop:
     * `session` is every turn of the session, `position` the end of the prefix the step saw.
     */
    describeStep?(session: readonly TurnMeta[], position: number, step: LiveStep): { reason: string; stats: Record<string, unknown> };
    /** How the design fires: before every call on a threshold, or (rolling) manual, replayed at a parameter. */
    note?: string;
  };
}
