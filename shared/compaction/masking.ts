// PLACEHOLDER (to be replaced by the planner implementation for 'masking').
import type { StrategyDefinition } from './strategy.js';

export const maskingStrategy: StrategyDefinition = {
  name: 'masking',
  label: 'masking',
  description: 'not implemented yet',
  specs: [],
  plan() {
    throw new Error('strategy masking: planner not implemented yet');
  },
};
