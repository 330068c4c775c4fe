// PLACEHOLDER (to be replaced by the pass implementation for 'window').
import type { PassFn } from '../pass.js';

export const windowPass: PassFn = async () => {
  throw new Error('strategy window: pass not implemented yet');
};
