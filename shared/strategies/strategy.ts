import type { ParamSpec } from './params.js';
import type { Plan, PlanInput, StrategyName } from './types.js';

/** One strategy: its parameter specs and its pure planner. */
export interface StrategyDefinition<P extends Record<string, number> = Record<string, number>> {
  name: StrategyName;
  label: string;
  /** One paragraph: what it does and which published design it follows. */
  description: string;
  specs: readonly ParamSpec[];
  /** Pure and deterministic; params already resolved against specs. */
  plan(input: PlanInput<P>): Plan<P>;
}
