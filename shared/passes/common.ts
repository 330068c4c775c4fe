/**
 * Helpers shared by the passes: a small bounded pool for summarize calls, reading a span's
 * turns, the drop-pass body, and writing a summary that continues the one before it.
 */
import type { ExistingSummary, Plan, PlanSpan, VariantState } from '../strategies/types.js';
import { buildSpanIndex, convCountIn } from '../strategies/spans.js';
import type { Turn } from '../model/turn.js';
import type { NewSummary, PassContext, PassOutcome, TieredSummary, VariantWriter } from './context.js';

/**
 * Writes a summary that continues and supersedes `prior` (a chain: rolling's running summary,
 * the native tools' one summary of the history): one level deeper, covering the prior's turns
 * and the span's, the prior marked compacted. Returns the new row's id. Inside a commit.
 */
export function insertChainedSummary(w: VariantWriter, o: { kind: NewSummary['kind']; promptVersion: string; summary: TieredSummary; span: Pick<PlanSpan, 'firstPosition' | 'lastPosition' | 'turnIds'>; prior: ExistingSummary | null }): number {
  const { summary, span, prior } = o;
  const id = w.insertSummary({
    kind: o.kind,
    // Generation: a summary of a summary is one level deeper (shown as a chain in the DAG view).
    depth: prior ? prior.depth + 1 : 0,
    text: summary.text,
    tokenCount: summary.tokenCount,
    tier: summary.tier,
    model: summary.model,
    promptVersion: o.promptVersion,
    cacheKey: summary.cacheKey,
    cacheHit: summary.cacheHit,
    firstPosition: prior ? Math.min(prior.firstPosition, span.firstPosition) : span.firstPosition,
    lastPosition: span.lastPosition,
    turnIds: span.turnIds,
    childSummaryIds: prior ? [prior.id] : [],
    facts: summary.facts,
  });
  if (prior) w.markCompacted([prior.id]);
  return id;
}

/**
 * Runs `fn` over `items` with at most `limit` in flight, results in input order. Checks
 * cancellation before starting each item, so a cancelled pass stops promptly (the engine's
 * semaphore also bounds the calls; this pool bounds memory and in-flight promises).
 */
export async function mapPool<T, R>(ctx: PassContext, items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    // After one failure the other workers start nothing new: the pass fails as a whole.
    while (next < items.length && !failed) {
      const i = next++;
      try {
        ctx.checkCancelled();
        results[i] = await fn(items[i], i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < Math.max(1, Math.min(limit, items.length)); w++) workers.push(worker());
  await Promise.all(workers);
  return results;
}

/** The span's conversation turns (its turnIds, in order; system turns inside the range are skipped). */
export function spanTurns(ctx: PassContext, span: PlanSpan): Turn[] {
  const read = ctx.readTurns(span.firstPosition, span.lastPosition + 1);
  // The projected timeline reads no turns: do not list the span's ids for nothing.
  if (read.length === 0) return read;
  const wanted = new Set(span.turnIds);
  return read.filter((t) => wanted.has(t.id));
}

/** Counts per tier, e.g. { normal: 3, fallback: 1 }: the `tiersUsed` stat. */
export function countTiers(tiers: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of tiers) out[t] = (out[t] ?? 0) + 1;
  return out;
}

/**
 * The shared body of the model-free "drop" passes (window, forgetting): plan, skip when
 * the trigger says no, else store the new droppedRanges (computed by the strategy from the
 * plan's one span) in ONE transaction for the replay. No summary is written.
 */
export async function runDropPass(ctx: PassContext, plan: Plan, nextDroppedRanges: (span: PlanSpan) => Array<[number, number]>): Promise<PassOutcome> {
  const span = plan.spans[0];
  if (!plan.trigger.compact || !span) return { status: 'skipped', stats: { reason: plan.trigger.reason } };
  ctx.checkCancelled();
  const state: VariantState = { ...ctx.state, droppedRanges: nextDroppedRanges(span) };
  await ctx.store.commit((w) => w.setState(state));
  ctx.progress(1, 1, 0);
  return {
    status: 'completed',
    // Counted from the index (cached per turn array), not by listing the span's ids.
    stats: { reason: plan.trigger.reason, turnsDropped: convCountIn(buildSpanIndex(ctx.metas), span.firstPosition, span.lastPosition + 1), tokensDropped: span.tokens, droppedRanges: state.droppedRanges, plannedTokensAfter: plan.tokensAfter },
    state,
  };
}
