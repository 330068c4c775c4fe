// PLACEHOLDER (to be replaced by the pass implementation for 'two-line').
import type { PassFn } from '../pass.js';

export const twoLinePass: PassFn = async () => {
  throw new Error('strategy two-line: pass not implemented yet');
};
