/**
 * The `forgetting` pass: model-free amortized forgetting, writes no summary. Each pass
 * forgets over the current view (turns not dropped before) and merges the new range into
 * VariantState.droppedRanges in ONE transaction; the replay omits the conversation turns
 * in those ranges (system turns are never dropped).
 */
import { droppedRangesAfter, forgettingSpecs, planForgetting, type ForgettingParams } from '../../../shared/compaction/forgetting.js';
import type { VariantState } from '../../../shared/compaction/types.js';
import { setVariantState } from '../../store/variants.js';
import type { PassFn } from '../pass.js';
import { passParams } from './common.js';

export const forgettingPass: PassFn = async (ctx, rawParams) => {
  const { params } = passParams<ForgettingParams>('forgetting', forgettingSpecs, rawParams);
  const plan = planForgetting({ turns: ctx.metas, summaries: [], state: ctx.state, params });
  const span = plan.spans[0];
  if (!plan.trigger.compact || !span) return { status: 'skipped', stats: { reason: plan.trigger.reason } };
  ctx.checkCancelled();
  const state: VariantState = { ...ctx.state, droppedRanges: droppedRangesAfter(plan, ctx.state.droppedRanges ?? []) };
  ctx.db.transaction(() => setVariantState(ctx.db, ctx.variant.id, state))();
  ctx.progress(1, 1, 0);
  return {
    status: 'completed',
    stats: { reason: plan.trigger.reason, turnsDropped: span.turnIds.length, tokensDropped: span.tokens, droppedRanges: state.droppedRanges, plannedTokensAfter: plan.tokensAfter },
    state,
  };
};
