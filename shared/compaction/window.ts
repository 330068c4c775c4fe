// PLACEHOLDER (to be replaced by the planner implementation for 'window').
import type { StrategyDefinition } from './strategy.js';

export const windowStrategy: StrategyDefinition = {
  name: 'window',
  label: 'window',
  description: 'not implemented yet',
  specs: [],
  plan() {
    throw new Error('strategy window: planner not implemented yet');
  },
};
