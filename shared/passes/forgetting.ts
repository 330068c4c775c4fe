/**
 * The `forgetting` pass: model-free amortized forgetting, writes no summary. Each pass
 * forgets over the current view (turns not dropped before) and merges the new range into
 * VariantState.droppedRanges in ONE transaction; the replay omits the conversation turns
 * in those ranges (system turns are never dropped).
 */
import { droppedRangesAfter, planForgetting, type ForgettingParams } from '../strategies/forgetting.js';
import type { PassFn } from './context.js';
import { runDropPass } from './common.js';

export const forgettingPass: PassFn = async (ctx, resolved) => {
  const params = resolved as ForgettingParams;
  const plan = planForgetting({ turns: ctx.metas, summaries: [], state: ctx.state, params });
  return runDropPass(ctx, plan, () => droppedRangesAfter(plan, ctx.state.droppedRanges ?? []));
};
