// PLACEHOLDER (to be replaced by the pass implementation for 'dag').
import type { PassFn } from '../pass.js';

export const dagPass: PassFn = async () => {
  throw new Error('strategy dag: pass not implemented yet');
};
