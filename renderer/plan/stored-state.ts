/**
 * The live plan as of the variant's stored state. Planners that recompute from scratch
 * (masking, window) plan the same spans before and after their pass, so on their own they
 * keep saying "Would compact … 1 planned" after Compact. Their definitions say what the
 * stored state leaves visible (`live.visible`); this reads it, for whichever strategy has
 * it, without naming any: when the state already leaves no more than the plan would, the
 * plan's spans are what the variant has done (applied), not what it would do.
 */
import { STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import type { Plan, PlanInput, StrategyName, VariantState } from '../../shared/strategies/types.js';
import { formatInt } from '../format.js';

export interface PlanAsStored {
  plan: Plan;
  /** The plan's spans are already in effect in the variant's stored state. */
  applied: boolean;
}

function hasState(state: VariantState): boolean {
  return Object.values(state).some((v) => v !== undefined && v !== null);
}

export function planAsStored(strategy: StrategyName, input: PlanInput<Record<string, number>>, plan: Plan): PlanAsStored {
  const visibleOf = STRATEGY_DEFINITIONS[strategy].live.visible as ((i: PlanInput<Record<string, number>>) => number) | undefined;
  if (!visibleOf || !hasState(input.state)) return { plan, applied: false };
  const visible = visibleOf(input);
  if (visible >= plan.tokensBefore) return { plan, applied: false };
  if (visible <= plan.tokensAfter) {
    return {
      applied: true,
      plan: {
        ...plan,
        tokensBefore: visible,
        trigger: {
          ...plan.trigger,
          compact: false,
          reason: `already compacted: the variant's last pass left ${formatInt(visible)} of ${formatInt(plan.tokensBefore)} tokens visible; a new pass would change nothing`,
        },
      },
    };
  }
  // Part of it is done (the session grew, or the pass stopped early): "now" is what is visible.
  return { plan: { ...plan, tokensBefore: visible }, applied: false };
}
