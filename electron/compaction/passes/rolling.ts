// PLACEHOLDER (to be replaced by the pass implementation for 'rolling').
import type { PassFn } from '../pass.js';

export const rollingPass: PassFn = async () => {
  throw new Error('strategy rolling: pass not implemented yet');
};
