// PLACEHOLDER (to be replaced by the pass implementation for 'forgetting').
import type { PassFn } from '../pass.js';

export const forgettingPass: PassFn = async () => {
  throw new Error('strategy forgetting: pass not implemented yet');
};
