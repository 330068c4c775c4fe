/**
 * The `window` pass: model-free, writes no summary. It stores the dropped middle as
 * VariantState.droppedRanges (ONE transaction) for the replay, which omits the
 * conversation turns in it (system turns are never dropped). The window is stateless:
 * each pass recomputes it over the whole session and replaces the ranges.
 */
import { planWindow, windowSpecs, type WindowParams } from '../../../shared/compaction/window.js';
import type { VariantState } from '../../../shared/compaction/types.js';
import { setVariantState } from '../../store/variants.js';
import type { PassFn } from '../pass.js';
import { passParams } from './common.js';

export const windowPass: PassFn = async (ctx, rawParams) => {
  const { params } = passParams<WindowParams>('window', windowSpecs, rawParams);
  const plan = planWindow({ turns: ctx.metas, summaries: [], state: ctx.state, params });
  const span = plan.spans[0];
  if (!plan.trigger.compact || !span) return { status: 'skipped', stats: { reason: plan.trigger.reason } };
  ctx.checkCancelled();
  const state: VariantState = { ...ctx.state, droppedRanges: [[span.firstPosition, span.lastPosition]] };
  ctx.db.transaction(() => setVariantState(ctx.db, ctx.variant.id, state))();
  ctx.progress(1, 1, 0);
  return {
    status: 'completed',
    stats: { reason: plan.trigger.reason, turnsDropped: span.turnIds.length, tokensDropped: span.tokens, droppedRanges: state.droppedRanges, plannedTokensAfter: plan.tokensAfter },
    state,
  };
};
