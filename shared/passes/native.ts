/**
 * The pass of the native strategies (`codex`, `claude-code`): executes
 * shared/strategies/native.ts's decision. Skip: `compaction_skipped`. Else the previous native
 * summary (prior) and every conversation turn since the last cut are summarized, with the
 * tool's own prompt (purpose = the strategy's name: shared/summarize/prompts.ts), into ONE
 * summary; one transaction inserts it (edges: the new turns and the previous summary), marks
 * the previous one compacted (superseded, never deleted) and writes the state {nativeCut,
 * nativeSummaryId, nativeKeptTokens}. An empty summary is an error, never written.
 */
import { decideNative, keptTokensOf, type NativeCommonParams, type NativeRule } from '../strategies/native.js';
import { buildSpanIndex, makeSpan } from '../strategies/spans.js';
import type { VariantState } from '../strategies/types.js';
import { turnsToItems } from '../model/items.js';
import type { PassFn } from './context.js';
import { insertChainedSummary, spanTurns } from './common.js';

export function nativePass<P extends NativeCommonParams>(rule: NativeRule<P>): PassFn {
  return async (ctx, resolved, opts) => {
    const params = resolved as unknown as P;
    const ix = buildSpanIndex(ctx.metas);
    const summaries = ctx.store.summaries();
    const d = decideNative(rule, { turns: ctx.metas, summaries, state: ctx.state, params, measure: ctx.measure, reported: ctx.reported }, ix, opts?.force ?? false);
    const span = d.compact && d.newCut !== null ? makeSpan(ctx.metas, ix, { id: 'p0', purpose: 'native', from: d.currentCut, to: d.newCut, targetTokens: params.summaryMaxTokens, priorSummaryId: d.currentSummary?.id ?? null }) : null;
    if (!span || d.newCut === null) {
      ctx.event('compaction_skipped', { reason: d.reason, contextTokens: d.reading.tokens, threshold: d.threshold });
      return { status: 'skipped', stats: { reason: d.reason, skip: d.skip, contextTokens: d.reading.tokens, threshold: d.threshold } };
    }
    const cut = d.newCut;
    const prior = d.currentSummary;
    ctx.event('compaction_started', { contextTokens: d.reading.tokens, threshold: d.threshold, fromCut: d.currentCut, toCut: cut });
    ctx.progress(0, 1, 0, `summarizing the whole history up to ${cut}`);
    const summary = await ctx.summarize({
      purpose: rule.strategy,
      items: turnsToItems(spanTurns(ctx, span)),
      priorSummary: prior ? ctx.store.summaryText(prior.id) : null,
      targetTokens: span.targetTokens,
    });
    if (summary.text.trim() === '') throw new Error(`${rule.strategy}: the summarizer returned an empty summary; nothing was written`);
    ctx.checkCancelled();
    const keptTokens = keptTokensOf(d.kept);
    let state: VariantState = ctx.state;
    await ctx.store.commit((w) => {
      const id = insertChainedSummary(w, { kind: 'native', promptVersion: ctx.summarizer.promptVersion, summary, span, prior });
      state = { ...ctx.state, nativeCut: cut, nativeSummaryId: id, nativeKeptTokens: keptTokens };
      w.setState(state);
    });
    ctx.progress(1, 1, summary.tokenCount);
    ctx.event('compaction_completed', { cacheHit: summary.cacheHit, costUsd: summary.costUsd, tier: summary.tier, model: summary.model, cut, summaryTokens: summary.tokenCount, keptUserMessages: d.kept.length, keptTokens });
    return {
      status: 'completed',
      stats: { reason: d.reason, contextTokens: d.reading.tokens, threshold: d.threshold, cut, turnsCompacted: span.turnIds.length, keptUserMessages: d.kept.length, keptTokens, summaryTokens: summary.tokenCount, tier: summary.tier },
      state,
    };
  };
}
