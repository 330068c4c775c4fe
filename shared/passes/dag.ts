/**
 * The `dag` pass: executes the dag planner's plan (shared/strategies/dag.ts).
 *
 * 1. Plan from the stored metas, summaries and parameters. Unless forced (`compact`),
 *    a plan whose trigger says no is skipped (`compactIfNeeded`).
 * 2. Leaf summaries, one after another: each chunk gets the previous chunk's new summary as
 *    its prior (the first chunk: the most recent depth-0 summary of earlier passes), the
 *    lossless-claw continuity rule, within and across passes.
 * 3. Condensations in plan order (depth by depth): children are existing summaries or
 *    leaves/parents made in step 2-3, in chronological order, each with its depth, turn
 *    positions and time range; the request carries the depth it makes (its prompt).
 * 4. Commit: ONE transaction inserts every summary with its edges, marks the children
 *    compacted. Nothing is written before it, so a cancelled or failed pass leaves the
 *    variant exactly as it was. Turns are never touched.
 */
import { withLazy } from '../lazy.js';
import { planDag, type DagParams } from '../strategies/dag.js';
import { summaryToItem, turnsToItems } from '../model/items.js';
import type { NewSummary, PassFn, TieredSummary } from './context.js';
import { countTiers, spanTurns } from './common.js';
import { buildSpanIndex, convCountIn } from '../strategies/spans.js';
import type { ExistingSummary, PlanSpan } from '../strategies/types.js';

interface Made {
  summary: TieredSummary;
  depth: number;
  firstPosition: number;
  lastPosition: number;
  /** A leaf's span: its turn ids are listed only when the store reads them (the projection never does). */
  span?: PlanSpan;
  childRefs?: string[];
}

export const dagPass: PassFn = async (ctx, resolved, opts) => {
  const params = resolved as DagParams;
  const force = opts?.force ?? false;
  const plan = planDag({ turns: ctx.metas, summaries: ctx.store.summaries(), state: ctx.state, params, measure: ctx.measure, reported: ctx.reported });
  if (!plan.trigger.compact && !force) return { status: 'skipped', stats: { reason: plan.trigger.reason } };
  if (plan.spans.length === 0 && plan.condense.length === 0) {
    return { status: 'skipped', stats: { reason: `nothing to compact: every evictable turn is summarized and no depth has ${params.condensedMinFanout} summaries (${plan.trigger.reason})` } };
  }

  const ix = buildSpanIndex(ctx.metas);
  const total = plan.spans.length + plan.condense.length;
  let done = 0;
  let tokensOut = 0;
  const made = new Map<string, Made>();
  const step = (s: TieredSummary) => {
    done++;
    tokensOut += s.tokenCount;
    ctx.progress(done, total, tokensOut);
  };
  ctx.progress(0, total, 0);

  // Leaves, chained as the design says: each chunk's prior is the previous chunk's new summary;
  // the first chunk's is the newest leaf from an earlier pass (continuity across passes). So
  // leaves are summarized one after another, not concurrently.
  const priorId = plan.spans[0]?.priorSummaryId ?? null;
  let priorText = priorId !== null ? ctx.store.summaryText(priorId) : null;
  for (const span of plan.spans) {
    ctx.checkCancelled();
    const summary = await ctx.summarize({ purpose: 'leaf', items: turnsToItems(spanTurns(ctx, span)), priorSummary: priorText, targetTokens: span.targetTokens });
    made.set(span.id, { summary, depth: 0, firstPosition: span.firstPosition, lastPosition: span.lastPosition, span });
    step(summary);
    priorText = summary.text;
  }

  // Condensations depend on the previous level: one at a time, in plan order.
  // Each child is labelled with its depth, turns and time range (the depth ≥ 2 prompt shows them).
  // The stored children the condensations name (plan refs `s<id>`), found in one scan of the
  // stored summaries: a firing of a live replay condenses a few of its hundreds of summaries.
  const needed = new Set<number>();
  for (const c of plan.condense) for (const ref of c.childIds) if (ref.startsWith('s')) needed.add(Number(ref.slice(1)));
  const byId = new Map<number, ExistingSummary>();
  if (needed.size > 0) for (const s of ctx.store.summaries()) if (needed.has(s.id)) byId.set(s.id, s);
  const existing = { get: (ref: string) => (ref.startsWith('s') ? byId.get(Number(ref.slice(1))) : undefined) };
  const timeAt = (position: number) => ctx.readTurns(position, position + 1)[0]?.timestamp ?? null;
  for (const c of plan.condense) {
    ctx.checkCancelled();
    // Condensation merges facts, not text: each child brings the facts kept with it (made in
    // this pass, or stored); a child without them has them read back from its text. Its place
    // (depth, turns, time) labels it in the depth >= 2 prompt.
    const items = c.childIds.map((ref) => {
      const child = existing.get(ref) ?? made.get(ref)!;
      const place = { depth: child.depth, firstPosition: child.firstPosition, lastPosition: child.lastPosition, firstAt: timeAt(child.firstPosition), lastAt: timeAt(child.lastPosition) };
      if (!ref.startsWith('s')) return summaryToItem(made.get(ref)!.summary.text, place, made.get(ref)!.summary.facts);
      const id = Number(ref.slice(1));
      return summaryToItem(ctx.store.summaryText(id), place, ctx.store.summaryFacts?.(id) ?? undefined);
    });
    const summary = await ctx.summarize({ purpose: 'condensed', depth: c.depth, items, targetTokens: c.targetTokens });
    let first = Infinity;
    let last = -Infinity;
    for (const ref of c.childIds) {
      const child = existing.get(ref) ?? made.get(ref)!;
      first = Math.min(first, child.firstPosition);
      last = Math.max(last, child.lastPosition);
    }
    made.set(c.id, { summary, depth: c.depth, firstPosition: first, lastPosition: last, childRefs: c.childIds });
    step(summary);
  }

  // Commit point: everything or nothing.
  ctx.checkCancelled();
  const ids = new Map<string, number>();
  const realId = (ref: string) => (ref.startsWith('s') ? Number(ref.slice(1)) : ids.get(ref)!);
  await ctx.store.commit((w) => {
    // Leaves first, then parents in plan order: a parent's children always have ids already.
    for (const ref of [...plan.spans.map((s) => s.id), ...plan.condense.map((c) => c.id)]) {
      const m = made.get(ref)!;
      const childIds = m.childRefs?.map(realId);
      const span = m.span;
      ids.set(
        ref,
        w.insertSummary(
          withLazy<NewSummary, 'turnIds'>(
            {
              kind: m.depth === 0 ? 'leaf' : 'condensed',
              depth: m.depth,
              text: m.summary.text,
              tokenCount: m.summary.tokenCount,
              tier: m.summary.tier,
              model: m.summary.model,
              promptVersion: ctx.summarizer.promptVersion,
              cacheKey: m.summary.cacheKey,
              cacheHit: m.summary.cacheHit,
              firstPosition: m.firstPosition,
              lastPosition: m.lastPosition,
            },
            // Lazy, not a spread: the store lists the ids only if it reads them.
            'turnIds',
            () => span?.turnIds,
            { childSummaryIds: childIds, facts: m.summary.facts },
          ),
        ),
      );
      if (childIds) w.markCompacted(childIds);
    }
  });

  const tiers = [...made.values()].map((m) => m.summary.tier);
  return {
    status: 'completed',
    stats: {
      reason: plan.trigger.compact ? plan.trigger.reason : `forced: ${plan.trigger.reason}`,
      leafSummariesCreated: plan.spans.length,
      // A replay firing's `spans`: the leaves' spans of turns (a condensation makes no new span).
      spansCompacted: plan.spans.length,
      condensedSummariesCreated: plan.condense.length,
      // Counted from the index (cached per turn array), not by listing each span's ids.
      turnsCompacted: plan.spans.reduce((n, s) => n + convCountIn(ix, s.firstPosition, s.lastPosition + 1), 0),
      tiersUsed: countTiers(tiers),
      maxDepth: plan.condense.reduce((d, c) => Math.max(d, c.depth), 0),
      plannedTokensAfter: plan.tokensAfter,
    },
  };
};
