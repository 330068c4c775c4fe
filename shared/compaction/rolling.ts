// PLACEHOLDER (to be replaced by the planner implementation for 'rolling').
import type { StrategyDefinition } from './strategy.js';

export const rollingStrategy: StrategyDefinition = {
  name: 'rolling',
  label: 'rolling',
  description: 'not implemented yet',
  specs: [],
  plan() {
    throw new Error('strategy rolling: planner not implemented yet');
  },
};
