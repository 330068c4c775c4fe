/**
 * The `watermark` pass: executes shared/strategies/watermark.ts's decision.
 *
 * The design's three events (`compaction_started`, `compaction_completed`,
 * `compaction_failed`) carry its payload, every field in its name, null where it does not
 * apply (`designEvent`): session_id, turn_id (the last turn the pass saw), watermark_before,
 * watermark_after, span_message_count, span_token_count_in, span_token_count_out,
 * threshold_or_hard_cap ('threshold' | 'hard_cap', null when forced by the caller below
 * both), cache_hit, cache_key, cost_usd, latency_ms, failure_mode, error_class,
 * error_message, truncated_message_count. The pass's other figures are in its stats.
 *
 * 1. Decide (pure planner). Skip: `compaction_skipped` event, or `compaction_failed` with
 *    failure mode `no_valid_boundary` when a tool cycle blocks every cut.
 * 2. `compaction_started`; when the hard cap compacts over a spent budget, then
 *    `compaction_failed` with failure mode `budget_exhausted_forced` (the budget rule
 *    failed; the pass goes on and ends with `compaction_completed`).
 * 3. Summarize the turns between the watermark and the new one (design version 1: never
 *    the earlier summaries, which stay as they are), through ctx.summarize
 *    with `allowFallback: false` so a failing model throws (cache and tiers are the
 *    engine's). On failure:
 *    - at or above the hard cap: TRUNCATION. The oldest non-preserved turns are dropped
 *      (tool-cycle safe) until pending tokens are under the cap. This is recorded as a
 *      summary row of kind 'watermark', tier 'truncation', model 'truncation', whose text
 *      says which turns were dropped unsummarized; so "each watermark summary stands for
 *      its span" stays the one rule the replay and the next pass rely on.
 *      Event `compaction_failed` with failure mode `adapter_error` and
 *      `truncated_message_count`; the run completes (the context did shrink).
 *    - below the cap: event `compaction_failed` (`adapter_error`, `retry: true`), skip;
 *      the next pass tries again (a cached tier makes that cheap).
 * 4. Validate the resulting message list (shared/replay) under the OpenAI and the
 *    Anthropic rules; any problem: `compaction_failed` with `validation_failed`, nothing
 *    written.
 * 5. Commit in one transaction under the session lock: the new summary (depth 0, turn
 *    edges to the newly covered turns; earlier summaries untouched) and the state
 *    {watermark, watermarkSummaryId (the newest), spentUsd}.
 *    The budget spends `summary.costUsd`: what the calls cost by the one price table
 *    (shared/cost/prices.ts) with the user's prices, 0 on a cache hit or a model-free summarizer.
 */
import { withLazy } from '../lazy.js';
import type { NewSummary, PassContext, PassFn, PassOutcome, TieredSummary } from './context.js';
import { decideWatermark, liveWatermarkSummaries, truncationCut, type WatermarkDecision, type WatermarkParams } from '../strategies/watermark.js';
import { buildSpanIndex, convCountIn, convSpan, convTokensIn, type SpanIndex } from '../strategies/spans.js';
import type { VariantState } from '../strategies/types.js';
import { turnsToItems } from '../model/items.js';
import { normalizeReplay } from '../replay/normalize.js';
import { watermarkCandidates } from '../replay/candidates.js';
import { validateMessages, type MessageProblem } from '../replay/validate.js';

/** Model name recorded on a truncation row (prices.ts prices it at 0). */
export const TRUNCATION_MODEL = 'truncation';

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));
/** The first problems of a message list, as one line (a failed event's error_message). */
const problemsText = (problems: readonly MessageProblem[]) => JSON.stringify(problems.slice(0, 10));
const isAbort = (ctx: PassContext, e: unknown) => ctx.signal.aborted || (e instanceof Error && e.name === 'AbortError');

/** The text of a truncation record: which turns were dropped unsummarized, and why. */
export function truncationNote(count: number, firstPosition: number, lastPosition: number, error: string): string {
  return `[${count} earlier message(s), turns ${firstPosition}-${lastPosition}, were truncated without a summary: the summarizer failed (${error.slice(0, 200)}).]`;
}

/** Problems of the message list the model would get with the earlier summaries and `text` standing for [watermark before, watermark). */
function validate(ctx: PassContext, d: WatermarkDecision, model: string, watermark: number, text: string): MessageProblem[] {
  // A projected timeline has stand-ins, no text to validate.
  if (ctx.projected) return [];
  const turns = ctx.readTurns(0, ctx.metas.length);
  const earlier = liveWatermarkSummaries(ctx.store.summaries()).map((x) => ({ id: x.id, model: 'earlier', text: ctx.store.summaryText(x.id), lastPosition: x.lastPosition }));
  const messages = normalizeReplay(watermarkCandidates(turns, [...earlier, { id: 0, model, text, lastPosition: watermark - 1 }], watermark));
  return [...validateMessages(messages, 'openai'), ...validateMessages(messages, 'anthropic')];
}

/** The design's fields a watermark event fills; the rest are null. */
type DesignFields = Partial<{
  watermark_after: number;
  span_token_count_out: number;
  cache_hit: boolean;
  cache_key: string | null;
  cost_usd: number;
  latency_ms: number;
  failure_mode: 'budget_exhausted_forced' | 'no_valid_boundary' | 'adapter_error' | 'validation_failed';
  error_class: string;
  /** A thunk for text only a stored event reads (a replay skips with no_valid_boundary at many calls and stores none). */
  error_message: string | (() => string);
  truncated_message_count: number;
}>;

/**
 * One of the design's three events for the span [watermark before, `to`): every payload field
 * of the session compaction spec, null where it does not apply.
 */
function designEvent(ctx: PassContext, d: WatermarkDecision, ix: SpanIndex, to: number, f: DesignFields): Record<string, unknown> {
  const last = ctx.metas[ctx.metas.length - 1];
  const from = d.currentWatermark;
  const spanEnd = Math.max(from, to);
  const head = {
    session_id: ctx.sessionId,
    turn_id: last ? last.id : null,
    watermark_before: from,
    watermark_after: f.watermark_after ?? to,
    span_message_count: convCountIn(ix, from, spanEnd),
    span_token_count_in: convTokensIn(ix, from, spanEnd),
    span_token_count_out: f.span_token_count_out ?? null,
    threshold_or_hard_cap: d.level === 'hard' ? 'hard_cap' : d.level === 'soft' ? 'threshold' : null,
    cache_hit: f.cache_hit ?? null,
    cache_key: f.cache_key ?? null,
    cost_usd: f.cost_usd ?? null,
    latency_ms: f.latency_ms ?? null,
    failure_mode: f.failure_mode ?? null,
    error_class: f.error_class ?? null,
  };
  const message = f.error_message;
  const tail = { truncated_message_count: f.truncated_message_count ?? null };
  if (typeof message === 'function') return withLazy<Record<string, unknown>, 'error_message'>(head, 'error_message', message, tail);
  return { ...head, error_message: message ?? null, ...tail };
}

const errorClass = (e: unknown) => (e instanceof Error ? e.name || e.constructor.name : typeof e);

interface Commit {
  text: string;
  tokenCount: number;
  tier: TieredSummary['tier'];
  model: string;
  cacheKey: string | null;
  cacheHit: boolean;
  watermark: number;
  spentUsd: number;
  /** The facts the summarizer returned with the text (the extractive one does), kept beside it. */
  facts?: TieredSummary['facts'];
}

function commit(ctx: PassContext, d: WatermarkDecision, c: Commit, ix: SpanIndex): Promise<VariantState> {
  const metas = ctx.metas;
  const span = convSpan(metas, d.currentWatermark, c.watermark, ix);
  return ctx.store.commit((w): VariantState => {
    // Optimistic check: another writer moved the watermark while we summarized.
    const now = w.state();
    if ((now.watermarkSummaryId ?? null) !== (ctx.state.watermarkSummaryId ?? null) || (now.watermark ?? null) !== (ctx.state.watermark ?? null)) {
      throw new Error(`variant ${ctx.variant.id} changed during the pass (watermark ${ctx.state.watermark ?? 'none'} -> ${now.watermark ?? 'none'}); nothing written`);
    }
    const id = w.insertSummary(
      withLazy<NewSummary, 'turnIds'>(
        {
          kind: 'watermark',
          // Version 1: one summary per pass, never folded into a later one.
          depth: 0,
          text: c.text,
          tokenCount: c.tokenCount,
          tier: c.tier,
          model: c.model,
          promptVersion: ctx.variant.summarizer.promptVersion,
          cacheKey: c.cacheKey,
          cacheHit: c.cacheHit,
          firstPosition: span.first,
          lastPosition: span.last,
        },
        // Read by the store that keeps them (SQLite at once; the replay's memory when asked).
        'turnIds',
        () => span.turnIds,
        { facts: c.facts },
      ),
    );
    const state: VariantState = { ...ctx.state, watermark: c.watermark, watermarkSummaryId: id, spentUsd: c.spentUsd };
    w.setState(state);
    return state;
  });
}

export const watermarkPass: PassFn = async (ctx, resolved, opts) => {
  const params = resolved as WatermarkParams;
  const force = opts?.force ?? false;
  const ix = buildSpanIndex(ctx.metas);
  const d = decideWatermark({ turns: ctx.metas, summaries: ctx.store.summaries(), state: ctx.state, params, measure: ctx.measure }, ix, force);
  const baseStats: BaseStats = { pendingTokens: d.pendingTokens, level: d.level, previousWatermark: d.currentWatermark, spentUsd: ctx.state.spentUsd ?? 0 };

  if (!d.compact || d.newWatermark === null) {
    // The skip's reason is written only if read (own enumerable lazy fields, shared/lazy.ts: the
    // engine stores the event and the stats as JSON; a live replay skips hundreds of times and reads neither).
    const reason = () => d.reason;
    if (d.skip === 'no_valid_boundary') ctx.event('compaction_failed', designEvent(ctx, d, ix, d.currentWatermark, { failure_mode: 'no_valid_boundary', error_message: reason }));
    else ctx.event('compaction_skipped', withLazy<Record<string, unknown>, 'reason'>({}, 'reason', reason, { pendingTokens: d.pendingTokens, level: d.level }));
    const stats = withLazy<Record<string, unknown>, 'reason'>(
      { pendingTokens: baseStats.pendingTokens, level: baseStats.level, previousWatermark: baseStats.previousWatermark, spentUsd: baseStats.spentUsd },
      'reason',
      reason,
      { skip: d.skip },
    );
    if (d.skip === 'no_valid_boundary') stats.failureMode = 'no_valid_boundary';
    return { status: 'skipped', stats };
  }
  const W = d.newWatermark;
  ctx.event('compaction_started', designEvent(ctx, d, ix, W, {}));
  // The budget rule failed; the hard cap compacts anyway.
  if (d.forced) ctx.event('compaction_failed', designEvent(ctx, d, ix, W, { failure_mode: 'budget_exhausted_forced', error_message: () => d.reason }));

  const newTurns = ctx.readTurns(d.currentWatermark, W).filter((t) => t.role !== 'system');
  const items = turnsToItems(newTurns);
  const spent = ctx.state.spentUsd ?? 0;
  ctx.progress(0, 1, 0, `summarizing ${newTurns.length} turns up to watermark ${W}`);

  let summary: TieredSummary;
  try {
    // Version 1: the new turns alone; earlier summaries are never re-summarized.
    summary = await ctx.summarize({ purpose: 'watermark', items, priorSummary: null, targetTokens: params.summaryMaxTokens, spanTokenCount: convTokensIn(ix, d.currentWatermark, W) }, { allowFallback: false });
  } catch (err) {
    if (isAbort(ctx, err)) throw err;
    const error = errorText(err);
    if (d.level !== 'hard') {
      // Nothing moved: the next pass retries.
      ctx.event('compaction_failed', designEvent(ctx, d, ix, W, { watermark_after: d.currentWatermark, failure_mode: 'adapter_error', error_class: errorClass(err), error_message: error }));
      return { status: 'skipped', stats: { ...baseStats, reason: `adapter_error below the hard cap: skipped, retried next pass (${error})`, failureMode: 'adapter_error', retry: true } };
    }
    return truncate(ctx, d, params, err, ix, baseStats);
  }
  ctx.checkCancelled();

  // What the summarizer really cost (priced once, with the user's prices, by the engine's tier ladder; 0 on a cache hit).
  const callCostUsd = summary.costUsd;
  const problems = validate(ctx, d, summary.model, W, summary.text);
  if (problems.length > 0) {
    ctx.event('compaction_failed', designEvent(ctx, d, ix, W, { watermark_after: d.currentWatermark, span_token_count_out: summary.tokenCount, cache_hit: summary.cacheHit, cache_key: summary.cacheKey, cost_usd: callCostUsd, latency_ms: summary.latencyMs, failure_mode: 'validation_failed', error_class: 'ValidationError', error_message: problemsText(problems) }));
    return { status: 'skipped', stats: { ...baseStats, reason: 'validation_failed', failureMode: 'validation_failed', problems: problems.length } };
  }
  const state = await commit(ctx, d, { text: summary.text, tokenCount: summary.tokenCount, tier: summary.tier, model: summary.model, cacheKey: summary.cacheKey, cacheHit: summary.cacheHit, watermark: W, spentUsd: spent + callCostUsd, facts: summary.facts }, ix);
  ctx.progress(1, 1, summary.tokenCount);
  ctx.event('compaction_completed', designEvent(ctx, d, ix, W, { span_token_count_out: summary.tokenCount, cache_hit: summary.cacheHit, cache_key: summary.cacheKey, cost_usd: callCostUsd, latency_ms: summary.latencyMs }));
  return {
    status: 'completed',
    stats: completedStats(baseStats, d.forced, d.reason, W, newTurns.length, summary, callCostUsd, state.spentUsd),
    state,
  };
};

/**
 * A completed pass's stats: { ...baseStats, ...forcedMode, reason, watermark, ... } written
 * out (the same keys in the same order; a literal, not spreads, once per firing of a replay).
 */
function completedStats(base: BaseStats, forced: boolean, reason: string, watermark: number, turnsCompacted: number, summary: TieredSummary, callCostUsd: number, spentUsd: number | undefined): Record<string, unknown> {
  if (forced) return { pendingTokens: base.pendingTokens, level: base.level, previousWatermark: base.previousWatermark, spentUsd, failureMode: 'budget_exhausted_forced', reason, watermark, turnsCompacted, summaryTokens: summary.tokenCount, tier: summary.tier, callCostUsd };
  return { pendingTokens: base.pendingTokens, level: base.level, previousWatermark: base.previousWatermark, spentUsd, reason, watermark, turnsCompacted, summaryTokens: summary.tokenCount, tier: summary.tier, callCostUsd };
}

interface BaseStats {
  pendingTokens: number;
  level: WatermarkDecision['level'];
  previousWatermark: number;
  spentUsd: number;
}

/** The summarizer failed at or above the hard cap: drop the oldest non-preserved turns instead. */
async function truncate(ctx: PassContext, d: WatermarkDecision, params: WatermarkParams, err: unknown, ix: SpanIndex, baseStats: BaseStats): Promise<PassOutcome> {
  const error = errorText(err);
  // Pending tokens count only turns after the watermark (version 1), so the cut alone brings them under the cap.
  const cut = truncationCut(ix, d, 0, params.hardCapTokens);
  const { turnIds: dropped, first: firstDropped, last: lastDropped } = convSpan(ctx.metas, d.currentWatermark, cut, ix);
  const note = truncationNote(dropped.length, firstDropped, lastDropped, error);
  // The truncation record stands for the dropped turns, as a summary would have.
  const text = note;
  const problems = validate(ctx, d, TRUNCATION_MODEL, cut, text);
  if (problems.length > 0) {
    ctx.event('compaction_failed', designEvent(ctx, d, ix, cut, { watermark_after: d.currentWatermark, failure_mode: 'validation_failed', error_class: 'ValidationError', error_message: problemsText(problems) }));
    return { status: 'skipped', stats: { ...baseStats, reason: 'validation_failed', failureMode: 'validation_failed', problems: problems.length } };
  }
  const tokenCount = ctx.countTokens(text);
  const state = await commit(ctx, d, { text, tokenCount, tier: 'truncation', model: TRUNCATION_MODEL, cacheKey: null, cacheHit: false, watermark: cut, spentUsd: ctx.state.spentUsd ?? 0 }, ix);
  const pendingAfter = d.tailStart > cut ? ix.convTokenPrefix[d.tailStart] - ix.convTokenPrefix[cut] : 0;
  ctx.event('compaction_failed', designEvent(ctx, d, ix, cut, { span_token_count_out: tokenCount, failure_mode: 'adapter_error', error_class: errorClass(err), error_message: error, truncated_message_count: dropped.length }));
  return {
    status: 'completed',
    stats: { ...baseStats, failureMode: 'adapter_error', truncatedMessageCount: dropped.length, watermark: cut, pendingTokensAfter: pendingAfter, underHardCap: pendingAfter < params.hardCapTokens, tier: 'truncation' },
    state,
  };
}
