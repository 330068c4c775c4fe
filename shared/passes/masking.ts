/**
 * The `masking` pass: model-free. It writes no summary; it records the mask boundary in
 * the variant state (ONE transaction) so the replay and the run history show what the
 * model no longer sees. The replay masks with `maskToolResults` (shared/strategies/masking.ts),
 * which derives the same boundary from the turns and `maskWindow`.
 */
import { MASK_PLACEHOLDER_TOKENS, maskBoundaryOf, planMasking, type MaskingParams } from '../strategies/masking.js';
import type { VariantState } from '../strategies/types.js';
import type { PassFn } from './context.js';

export const maskingPass: PassFn = async (ctx, resolved) => {
  const params = resolved as MaskingParams;
  const plan = planMasking({ turns: ctx.metas, summaries: [], state: ctx.state, params });
  const boundary = maskBoundaryOf(ctx.metas, params.maskWindow);
  if (!plan.trigger.compact || boundary === null) return { status: 'skipped', stats: { reason: plan.trigger.reason } };
  const span = plan.spans[0];
  ctx.checkCancelled();
  const state: VariantState = { ...ctx.state, maskBoundary: boundary };
  await ctx.store.commit((w) => w.setState(state));
  ctx.progress(1, 1, 0);
  return {
    status: 'completed',
    stats: {
      reason: plan.trigger.reason,
      maskBoundary: boundary,
      // The plan's target is one placeholder per masked turn (masking.ts): the count without listing the ids.
      toolResultTurnsMasked: span.targetTokens / MASK_PLACEHOLDER_TOKENS,
      tokensMaskedEstimate: span.tokens - Math.min(span.tokens, span.targetTokens),
      plannedTokensAfter: plan.tokensAfter,
    },
    state,
  };
};
