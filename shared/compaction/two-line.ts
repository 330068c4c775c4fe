// PLACEHOLDER (to be replaced by the planner implementation for 'two-line').
import type { StrategyDefinition } from './strategy.js';

export const twoLineStrategy: StrategyDefinition = {
  name: 'two-line',
  label: 'two-line',
  description: 'not implemented yet',
  specs: [],
  plan() {
    throw new Error('strategy two-line: planner not implemented yet');
  },
};
