/**
 * The strategy registry: every strategy's rules (shared/strategies/<s>.ts: parameters,
 * planner, view, live check) with its pass (shared/passes/<s>.ts), registered once.
 * Callers resolve parameters ONCE (`prepareStrategy`) and hand the result on.
 */
import { ParamError, resolveParams } from './params.js';
import { stageMetas } from './mask-stage.js';
import { describeMeasure, readContext, readInput, TRANSCRIPT_MEASURE } from '../usage/measure.js';
import type { StrategyRules } from './strategy.js';
import type { Plan, PlanInput, StrategyName } from './types.js';
import type { PassFn } from '../passes/context.js';
import { dagStrategy } from './dag.js';
import { rollingStrategy } from './rolling.js';
import { watermarkStrategy } from './watermark.js';
import { twoLineStrategy } from './two-line.js';
import { maskingStrategy } from './masking.js';
import { windowStrategy } from './window.js';
import { forgettingStrategy } from './forgetting.js';
import { codexStrategy } from './codex.js';
import { claudeCodeStrategy } from './claude-code.js';
import { dagPass } from '../passes/dag.js';
import { rollingPass } from '../passes/rolling.js';
import { watermarkPass } from '../passes/watermark.js';
import { twoLinePass } from '../passes/two-line.js';
import { maskingPass } from '../passes/masking.js';
import { windowPass } from '../passes/window.js';
import { forgettingPass } from '../passes/forgetting.js';
import { codexPass } from '../passes/codex.js';
import { claudeCodePass } from '../passes/claude-code.js';

export interface StrategyDefinition<P extends Record<string, number> = Record<string, number>> extends StrategyRules<P> {
  /** Executes a plan: summarizer calls and the commit, through the PassContext. */
  pass: PassFn;
}

const define = <P extends Record<string, number>>(rules: StrategyRules<P>, pass: PassFn): StrategyDefinition => ({ ...(rules as unknown as StrategyRules), pass });

export const STRATEGY_DEFINITIONS: Record<StrategyName, StrategyDefinition> = {
  dag: define(dagStrategy, dagPass),
  rolling: define(rollingStrategy, rollingPass),
  watermark: define(watermarkStrategy, watermarkPass),
  'two-line': define(twoLineStrategy, twoLinePass),
  masking: define(maskingStrategy, maskingPass),
  window: define(windowStrategy, windowPass),
  forgetting: define(forgettingStrategy, forgettingPass),
  codex: define(codexStrategy, codexPass),
  'claude-code': define(claudeCodeStrategy, claudeCodePass),
};

/** A strategy with its parameters resolved against its specs: what every caller plans, runs and replays with. */
/** The strategy design's default for the fallback ladder (its definition's `fallbackLadder`, else on): the window's checkbox and the engine read it. */
export function defaultFallbackLadder(strategy: StrategyName): boolean {
  return STRATEGY_DEFINITIONS[strategy].fallbackLadder ?? true;
}

export interface PreparedStrategy {
  strategy: StrategyName;
  definition: StrategyDefinition;
  params: Record<string, number>;
}

/** Resolves raw params (defaults, ranges) once. Throws ParamError on bad params or an unknown strategy. */
export function prepareStrategy(strategy: StrategyName, raw: Record<string, unknown> | undefined): PreparedStrategy {
  const definition = STRATEGY_DEFINITIONS[strategy];
  if (!definition) throw new ParamError(`unknown strategy '${String(strategy)}' (known: ${Object.keys(STRATEGY_DEFINITIONS).join(', ')})`);
  return { strategy, definition, params: resolveParams<Record<string, number>>(strategy, definition.specs, raw) };
}

/** Plans with a prepared strategy: the pre-stages (masking first stage) applied, then the strategy's planner. */
export function planPrepared(p: PreparedStrategy, input: Omit<PlanInput<Record<string, number>>, 'params'>): Plan<Record<string, number>> {
  const plan = nothingToEvict(p.definition.plan({ ...input, turns: stageMetas(p.params, input.turns), params: p.params }));
  const measure = input.measure ?? TRANSCRIPT_MEASURE;
  // The gauge's figures by the same measure as the trigger (after the plan, nothing the source reported applies).
  return { ...plan, measured: { before: readInput(input, plan.tokensBefore).tokens, after: readContext(measure, plan.tokensAfter).tokens, measure: describeMeasure(measure) } };
}

/**
 * THE figure "tokens the model sees" for a variant (the gauge's "now", a run's tokensBefore and
 * tokensAfter, the live replay's view), in transcript units: every visible turn at the token
 * count stored at import (so a variant with nothing compacted sees exactly the session's
 * total), every visible summary at its stored token count, a masked tool result at
 * MASK_PLACEHOLDER_TOKENS. The strategy says what is visible (`live.visible`, else its
 * planner's `tokensBefore`). The Context view and the exports count the message list as sent
 * instead (summary headers, glue turns, converted tool calls, real placeholders:
 * shared/replay/build.ts), a different figure with its own label.
 */
export function visibleTokens(p: PreparedStrategy, input: Omit<PlanInput<Record<string, number>>, 'params'>): number {
  const staged = { ...input, turns: stageMetas(p.params, input.turns), params: p.params };
  return p.definition.live.visible ? p.definition.live.visible(staged) : p.definition.plan(staged).tokensBefore;
}

/**
 * What Compact will do with a plan: run it when its trigger fires, or when forced (the
 * explicit choice; the pass then executes the spans the plan lists). Not forced and not
 * triggered: nothing runs, the model keeps seeing `tokensBefore`. The window's gauge and
 * the CLI's plan report this, so their "after" is what the pass would leave.
 */
export function compactOutcome(plan: Pick<Plan, 'trigger' | 'spans' | 'condense' | 'tokensBefore' | 'tokensAfter'>, force: boolean): { runs: boolean; tokensAfter: number; note: string | null } {
  const work = plan.spans.length + plan.condense.length;
  if (plan.trigger.compact) return { runs: true, tokensAfter: plan.tokensAfter, note: null };
  if (force && work > 0) return { runs: true, tokensAfter: plan.tokensAfter, note: `forced: runs the ${work} planned step(s) although the trigger says no` };
  return { runs: false, tokensAfter: plan.tokensBefore, note: work > 0 ? `Force would run the ${work} planned step(s)` : null };
}

/**
 * A plan that would compact but has nothing to evict (every candidate protected, e.g. a fresh
 * tail longer than the session) says so instead of "would compact" with 0 spans.
 */
function nothingToEvict(plan: Plan<Record<string, number>>): Plan<Record<string, number>> {
  if (!plan.trigger.compact || plan.spans.length > 0 || plan.condense.length > 0) return plan;
  return { ...plan, tokensAfter: plan.tokensBefore, trigger: { ...plan.trigger, compact: false, reason: `${plan.trigger.reason}; but nothing can be evicted` } };
}

/** Resolves raw params and plans (the window's preview and the CLI's `plan`). Throws ParamError on bad params. */
export function planFor(strategy: StrategyName, input: Omit<PlanInput<Record<string, unknown>>, 'params'> & { params: Record<string, unknown> }): Plan<Record<string, number>> {
  const { params, ...rest } = input;
  return planPrepared(prepareStrategy(strategy, params), rest);
}
