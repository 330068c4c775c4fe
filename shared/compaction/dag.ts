// PLACEHOLDER (to be replaced by the planner implementation for 'dag').
import type { StrategyDefinition } from './strategy.js';

export const dagStrategy: StrategyDefinition = {
  name: 'dag',
  label: 'dag',
  description: 'not implemented yet',
  specs: [],
  plan() {
    throw new Error('strategy dag: planner not implemented yet');
  },
};
