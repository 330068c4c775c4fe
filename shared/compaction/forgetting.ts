// PLACEHOLDER (to be replaced by the planner implementation for 'forgetting').
import type { StrategyDefinition } from './strategy.js';

export const forgettingStrategy: StrategyDefinition = {
  name: 'forgetting',
  label: 'forgetting',
  description: 'not implemented yet',
  specs: [],
  plan() {
    throw new Error('strategy forgetting: planner not implemented yet');
  },
};
