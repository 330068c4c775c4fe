/** The strategy registry: every planner by name, and planFor() that resolves params first. */
import { resolveParams } from './params.js';
import { maskedMetas, preMaskWindowOf } from './mask-stage.js';
import type { StrategyDefinition } from './strategy.js';
import type { Plan, PlanInput, StrategyName } from './types.js';
import { dagStrategy } from './dag.js';
import { rollingStrategy } from './rolling.js';
import { watermarkStrategy } from './watermark.js';
import { twoLineStrategy } from './two-line.js';
import { maskingStrategy } from './masking.js';
import { windowStrategy } from './window.js';
import { forgettingStrategy } from './forgetting.js';

export const STRATEGY_DEFINITIONS: Record<StrategyName, StrategyDefinition> = {
  dag: dagStrategy,
  rolling: rollingStrategy,
  watermark: watermarkStrategy,
  'two-line': twoLineStrategy,
  masking: maskingStrategy,
  window: windowStrategy,
  forgetting: forgettingStrategy,
};

/** Resolves raw params (defaults, ranges) and runs the strategy's planner. Throws ParamError on bad params. */
export function planFor(strategy: StrategyName, input: Omit<PlanInput<Record<string, unknown>>, 'params'> & { params: Record<string, unknown> }): Plan<Record<string, number>> {
  const def = STRATEGY_DEFINITIONS[strategy];
  const params = resolveParams<Record<string, number>>(strategy, def.specs, input.params);
  // The optional masking first stage (mask-stage.ts): the strategy plans on masked counts.
  const preMask = preMaskWindowOf(params);
  const turns = preMask === null ? input.turns : maskedMetas(input.turns, preMask);
  return def.plan({ ...input, turns, params });
}
