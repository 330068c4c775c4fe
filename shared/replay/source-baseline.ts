/**
 * The source tool's baseline of a timeline, two ways:
 * - **recorded**: what the source's transcripts say it spent — the main session's calls,
 *   the source tool's own compaction calls (Claude Code's compaction agent,
 *   `subagents/agent-acompact-*.jsonl`, imported as a child session linked to its marker)
 *   and, unless left out, the subagents the model started; one line each, each call priced
 *   at its own recorded model (shared/cost/caching.ts `priceRecordedUsage`). Calls whose last
 *   `output_tokens` is a streaming placeholder (shared/usage/placeholder.ts) are counted: their
 *   figure is a floor.
 * - **simulated**: the same compactions (where the source compacted, and its summary's size)
 *   run through the app's usage model — the context model `a + b × view` and the caching
 *   rules — as every strategy is (its calls before the first compaction are the record, as in
 *   every series). Simulated ÷ recorded − 1 over the main and compaction calls
 *   is the usage model's error on this session: the error bar of every simulated figure
 *   (null when the source never compacted: its simulation is then its record).
 */
import type { ModelCostLine, ReplayTimeline, SourceChildUsage, SourceCostLine } from '../contract.js';
import { priceRecordedUsage, simulateCallColumns, useRecordedCalls, type CacheTtl, type CostTotals, type RecordedColumns } from '../cost/caching.js';
import { infeasibilityOf, mergeCostLines } from '../cost/figures.js';
import type { UserPrices } from '../cost/prices.js';
import type { TurnMeta } from '../model/turn.js';
import { isOutputPlaceholder } from '../usage/placeholder.js';
import { reportedContext, type ModelCallUsage } from '../usage/types.js';
import { contextOf, type ContextModel, type LiveCall, type LiveCalls } from './live.js';
import { costLines, totalsOf } from './totals.js';

/** A compaction of the source, as the baseline needs it. */
export interface SourceCompactionInput {
  boundaryPosition: number;
  summaryTokenCount?: number;
}

export interface SourceBaselineInput {
  metas: readonly TurnMeta[];
  calls: readonly LiveCall[];
  usageByPosition: ReadonlyMap<number, ModelCallUsage>;
  external: readonly SourceCompactionInput[];
  children: readonly SourceChildUsage[];
  /** Count the subagents' calls in the recorded total (default true). */
  includeSubagents: boolean;
  model: ContextModel;
  lc: Pick<LiveCalls, 'count' | 'outputTokens' | 'timestampMs'>;
  /** Each call's model (index into names) and every model's window. */
  callModels: { names: readonly string[]; index: ArrayLike<number> };
  windows: ReadonlyArray<{ model: string; tokens: number }>;
  /** The main calls' recorded cost where the source sent the uncompacted transcript (NaN elsewhere). */
  recorded: RecordedColumns;
  /** The window of a model the calls do not use (a compaction call's own model). */
  windowOf(model: string): number;
  ttl: CacheTtl;
  userPrices?: UserPrices;
  firings: number;
}

type SourceBaseline = ReplayTimeline['baselines']['source'];

const zeroTotals = (): CostTotals => ({ calls: 0, promptTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, uncachedInputTokens: 0, outputTokens: 0, costUsd: 0 });

/** One source's recorded calls priced, summed into `into`, as a line. */
function recordedLine(kind: SourceCostLine['kind'], sessionId: number, label: string, calls: ReadonlyArray<{ u: ModelCallUsage | undefined; visible: number; fallbackOutput: number }>, into: CostTotals, userPrices: UserPrices | undefined): SourceCostLine {
  const byModel = new Map<string, ModelCostLine>();
  let costUsd = 0;
  let placeholderOutputCalls = 0;
  let placeholderInputCalls = 0;
  for (const { u, visible, fallbackOutput } of calls) {
    into.calls += 1;
    if (!u || u.placeholder) {
      // No trusted figures: the output as the transcript shows it, nothing priced.
      into.outputTokens += fallbackOutput;
      if (u?.placeholder) placeholderInputCalls += 1;
      continue;
    }
    if (isOutputPlaceholder(u.outputTokens, visible)) placeholderOutputCalls += 1;
    const priced = priceRecordedUsage(u, userPrices);
    const model = u.model ?? 'unknown';
    const line = byModel.get(model) ?? { model, calls: 0, costUsd: 0, known: priced.known };
    line.calls += 1;
    line.costUsd += priced.costUsd;
    byModel.set(model, line);
    costUsd += priced.costUsd;
    into.promptTokens += reportedContext(u) ?? 0;
    into.cacheReadTokens += u.cacheReadTokens ?? 0;
    into.cacheWriteTokens += (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0);
    into.uncachedInputTokens += u.inputTokens ?? 0;
    into.outputTokens += u.outputTokens ?? 0;
    into.costUsd += priced.costUsd;
  }
  return { kind, sessionId, label, calls: calls.length, costUsd, byModel: [...byModel.values()], placeholderOutputCalls, placeholderInputCalls };
}

export function sourceBaseline(o: SourceBaselineInput, sessionId: number, events: SourceBaseline['events']): SourceBaseline {
  const n = o.lc.count;
  const { calls, usageByPosition, metas } = o;
  const sourceContext = new Array<number | null>(n);
  for (let k = 0; k < n; k++) {
    const u = usageByPosition.get(calls[k].position);
    sourceContext[k] = u ? reportedContext(u) : null;
  }

  // Recorded: the main session, then each compaction call, then each subagent.
  const recorded = zeroTotals();
  const mainCalls = calls.map((c, k) => ({ u: usageByPosition.get(c.position), visible: metas[c.position]?.tokenCount ?? 0, fallbackOutput: o.lc.outputTokens[k] }));
  const lines: SourceCostLine[] = [recordedLine('main', sessionId, 'main session', mainCalls, recorded, o.userPrices)];
  const childLine = (c: SourceChildUsage, into: CostTotals) => recordedLine(c.kind, c.sessionId, c.title, c.calls.map((u, i) => ({ u, visible: c.visibleOutput[i] ?? 0, fallbackOutput: 0 })), into, o.userPrices);
  for (const c of o.children) if (c.kind === 'compaction') lines.push(childLine(c, recorded));
  // What the simulation is compared with: main and compaction calls (subagents are not simulated).
  const recordedUsd = recorded.costUsd;
  for (const c of o.children) if (c.kind === 'subagent' && o.includeSubagents) lines.push(childLine(c, recorded));
  const byModel = mergeCostLines(...lines.map((l) => l.byModel));
  const placeholderOutputCalls = lines.reduce((s, l) => s + l.placeholderOutputCalls, 0);
  const infeasible = infeasibilityOf(sourceContext, (k) => o.callModels.index[k], o.windows);
  const totals = totalsOf(recorded, sourceContext, { summarizerCostUsd: 0, firings: o.firings, maxDepth: 0, byModel, infeasible });

  const simulated = simulateSource(o);
  // Without a compaction of the source the simulation IS the record: nothing to measure.
  const usageModelError = o.external.length > 0 && recordedUsd > 0 && simulated.totals.complete !== false ? Math.round((simulated.totals.costUsd / recordedUsd - 1) * 1e4) / 1e4 : null;
  return { context: sourceContext, events, totals, lines, includesSubagents: o.includeSubagents, simulated: { totals: simulated.totals, recordedUsd: Math.round(recordedUsd * 1e6) / 1e6, usageModelError }, placeholderOutputCalls };
}

/**
 * The source's compactions through the usage model: until its first compaction the context
 * is what the source reported (or the model where it reported none), as for every strategy;
 * after a compaction at boundary B it is `a + b × (summary + turns [B, call))`. Each compaction
 * is one extra call: the context so far sent again (read from the cache), the summary written
 * as its output, at the model of the source's compaction call (else of the call before it).
 */
function simulateSource(o: SourceBaselineInput) {
  const { metas, calls, model } = o;
  const prefix = new Float64Array(metas.length + 1);
  for (let i = 0; i < metas.length; i++) prefix[i + 1] = prefix[i] + metas[i].tokenCount;
  const before = (p: number) => prefix[Math.max(0, Math.min(p, metas.length))];
  const compactions = [...o.external].sort((a, b) => a.boundaryPosition - b.boundaryPosition);
  const names = [...o.callModels.names];
  const modelIndexOf = (name: string) => {
    const i = names.indexOf(name);
    if (i >= 0) return i;
    names.push(name);
    return names.length - 1;
  };
  const prompt: number[] = [];
  const shared: number[] = [];
  const output: number[] = [];
  const time: number[] = [];
  const modelIdx: number[] = [];
  // The main call each simulated call is (-1: a compaction call), for the recorded prefix.
  const mainCall: number[] = [];
  let segmentStart = -1;
  let summaryTokens = 0;
  let next = 0;
  const push = (raw: number, s: number, out: number, t: number, m: number) => {
    // Whole tokens, as the provider counts them (the context model's a + b × view is fractional).
    const p = Math.round(raw);
    out = Math.round(out);
    shared.push(prompt.length === 0 ? 0 : Math.min(Math.round(s), prompt[prompt.length - 1], p));
    prompt.push(p);
    output.push(out);
    time.push(t);
    modelIdx.push(m);
  };
  const contextAt = (position: number) => (segmentStart < 0 ? null : contextOf(model, summaryTokens + before(position) - before(segmentStart)));
  for (let k = 0; k < calls.length; k++) {
    const c = calls[k];
    while (next < compactions.length && compactions[next].boundaryPosition <= c.position) {
      const x = compactions[next++];
      const sent = contextAt(x.boundaryPosition) ?? contextOf(model, before(x.boundaryPosition));
      const child = o.children.find((ch) => ch.kind === 'compaction' && ch.boundaryPosition === x.boundaryPosition);
      const childModel = child?.calls.find((u) => u.model && !u.model.startsWith('<'))?.model ?? null;
      const m = childModel !== null ? modelIndexOf(childModel) : (modelIdx[modelIdx.length - 1] ?? 0);
      push(sent, prompt[prompt.length - 1] ?? 0, (x.summaryTokenCount ?? 0) * model.b, time[time.length - 1] ?? NaN, m);
      mainCall.push(-1);
      segmentStart = x.boundaryPosition;
      summaryTokens = x.summaryTokenCount ?? 0;
    }
    // The first prompt after a compaction shares only the fixed part (system prompt and tools) with the last.
    const firstAfter = segmentStart >= 0 && (k === 0 || calls[k - 1].position < segmentStart);
    const ctx = contextAt(c.position) ?? c.reportedContext ?? contextOf(model, before(c.position));
    push(ctx, firstAfter ? model.a : (prompt[prompt.length - 1] ?? 0), o.lc.outputTokens[k], o.lc.timestampMs[k], o.callModels.index[k]);
    mainCall.push(segmentStart < 0 ? k : -1);
  }
  const costs = simulateCallColumns({ count: prompt.length, promptTokens: prompt, sharedPrefixTokens: shared, outputTokens: output, timestampMs: time }, { model: names[0] ?? '', callModels: { names, index: modelIdx }, ttl: o.ttl, userPrices: o.userPrices });
  // Until the source first compacted, its calls are the record itself (as in every series).
  useRecordedCalls(costs, o.recorded, (j) => mainCall[j], (j) => names[modelIdx[j]]);
  const infeasible = infeasibilityOf(prompt, (k) => modelIdx[k], names.map((nm, i) => o.windows[i] ?? { model: nm, tokens: o.windowOf(nm) }));
  return { totals: totalsOf(costs.totals, prompt, { summarizerCostUsd: 0, firings: compactions.length, maxDepth: 0, byModel: costLines(costs.byModel), infeasible }) };
}
