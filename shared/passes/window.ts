/**
 * The `window` pass: model-free, writes no summary. It stores the dropped middle as
 * VariantState.droppedRanges (ONE transaction) for the replay, which omits the
 * conversation turns in it (system turns are never dropped). The window is stateless:
 * each pass recomputes it over the whole session and replaces the ranges.
 */
import { planWindow, type WindowParams } from '../strategies/window.js';
import type { PassFn } from './context.js';
import { runDropPass } from './common.js';

export const windowPass: PassFn = async (ctx, resolved) => {
  const params = resolved as WindowParams;
  const plan = planWindow({ turns: ctx.metas, summaries: [], state: ctx.state, params });
  return runDropPass(ctx, plan, (span) => [[span.firstPosition, span.lastPosition]]);
};
