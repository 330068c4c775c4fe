// PLACEHOLDER (to be replaced by the pass implementation for 'masking').
import type { PassFn } from '../pass.js';

export const maskingPass: PassFn = async () => {
  throw new Error('strategy masking: pass not implemented yet');
};
