/**
 * The `rolling` pass: one call of the rolling-summary rule (shared/strategies/rolling.ts).
 * "Already up to date" plans make no summarizer call (forcing changes nothing: there is
 * nothing to fold). Otherwise the existing summary + the collected batch are summarized
 * into a new summary; an empty summary is an error, never written (its design: the fallback
 * ladder is off for rolling unless the variant's summarizer settings turn it on, and a
 * failed or unusable answer fails the run). At the commit point
 * ONE transaction inserts the new summary (edges: the batch's turns and the previous
 * summary), marks the previous summary compacted (superseded, never deleted) and
 * advances the pointer in the variant state.
 */
import { planRolling, type RollingParams } from '../strategies/rolling.js';
import type { VariantState } from '../strategies/types.js';
import { turnsToItems } from '../model/items.js';
import type { PassFn } from './context.js';
import { insertChainedSummary, spanTurns } from './common.js';

export const rollingPass: PassFn = async (ctx, resolved) => {
  const params = resolved as RollingParams;
  const summaries = ctx.store.summaries();
  const plan = planRolling({ turns: ctx.metas, summaries, state: ctx.state, params });
  const span = plan.spans[0];
  if (!plan.trigger.compact || !span) return { status: 'skipped', stats: { reason: plan.trigger.reason, pointer: ctx.state.pointer ?? 0 } };

  const prior = span.priorSummaryId != null ? summaries.find((s) => s.id === span.priorSummaryId) ?? null : null;
  ctx.progress(0, 1, 0);
  let summary: Awaited<ReturnType<typeof ctx.summarize>>;
  try {
    // The fallback ladder only when the variant's summarizer settings turn it on (off by the design).
    summary = await ctx.summarize({
      purpose: 'rolling',
      items: turnsToItems(spanTurns(ctx, span)),
      priorSummary: prior ? ctx.store.summaryText(prior.id) : null,
      targetTokens: span.targetTokens,
    });
  } catch (err) {
    if (ctx.signal.aborted || (err instanceof Error && err.name === 'AbortError')) throw err;
    const attempts = (err as { attempts?: Array<{ tier: string; error: string }> }).attempts;
    const why = attempts ? attempts.map((a) => `${a.tier}: ${a.error}`).join('; ') : err instanceof Error ? err.message : String(err);
    throw new Error(`rolling: the summarizer returned no usable summary (${why}); nothing was written`, { cause: err });
  }
  if (summary.text.trim() === '') throw new Error('rolling: the summarizer returned an empty summary; nothing was written');
  ctx.progress(1, 1, summary.tokenCount);

  ctx.checkCancelled();
  const pointer = (ctx.state.pointer ?? 0) + span.turnIds.length;
  let state: VariantState = ctx.state;
  await ctx.store.commit((w) => {
    const id = insertChainedSummary(w, { kind: 'rolling', promptVersion: ctx.summarizer.promptVersion, summary, span, prior });
    state = { ...ctx.state, pointer, rollingSummaryId: id };
    w.setState(state);
  });

  return {
    status: 'completed',
    stats: {
      reason: plan.trigger.reason,
      turnsCompacted: span.turnIds.length,
      charsCompacted: span.chars,
      pointer,
      summaryChars: summary.text.length,
      tiersUsed: { [summary.tier]: 1 },
    },
    state,
  };
};
