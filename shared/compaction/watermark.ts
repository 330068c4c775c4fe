// PLACEHOLDER (to be replaced by the planner implementation for 'watermark').
import type { StrategyDefinition } from './strategy.js';

export const watermarkStrategy: StrategyDefinition = {
  name: 'watermark',
  label: 'watermark',
  description: 'not implemented yet',
  specs: [],
  plan() {
    throw new Error('strategy watermark: planner not implemented yet');
  },
};
