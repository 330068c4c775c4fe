// PLACEHOLDER (to be replaced by the pass implementation for 'watermark').
import type { PassFn } from '../pass.js';

export const watermarkPass: PassFn = async () => {
  throw new Error('strategy watermark: pass not implemented yet');
};
