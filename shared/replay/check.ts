/**
 * `replay --check`: the fast replay (live.ts, as the window's projection runs it: stand-in
 * summaries of their target size) beside the reference replay (reference/: each design's
 * rule as plain loops at every call), over the same session and parameters. They agree when,
 * call by call, the same firings happen (kind, the rule's figure, the turn ranges taken out
 * of the view) and the model receives the same view and context. The first call where they
 * differ is reported with both sides.
 */
import type { PreparedStrategy } from '../strategies/index.js';
import type { TurnMeta } from '../model/turn.js';
import { readContext, type ContextMeasure } from '../usage/measure.js';
import { costMeasureOf, runLive, triggerMeasureOf, type ContextModel, type LiveCall, type LiveFiring } from './live.js';
import { MemoryVariantStore } from './memory-store.js';
import { projectedContext } from './projection.js';
import { referenceReplay } from './reference/index.js';
import type { RefFiring, RefSession } from './reference/common.js';

export interface CheckInput {
  prepared: PreparedStrategy;
  metas: readonly TurnMeta[];
  calls: readonly LiveCall[];
  /** The session's context model (what the model received). */
  model: ContextModel;
  commitDelayCalls?: number;
}

export interface CheckFiring {
  call: number;
  kind: 'fire' | 'commit';
  /** The rule's own figure: measured context (dag, rolling), pending tokens (watermark), pressure (two-line); null for turn counts. */
  figure: number | null;
  spans: Array<[number, number]>;
}

export interface CheckSide {
  firings: CheckFiring[];
  /** Per call: the view's transcript tokens and what the model received. */
  views: number[];
  contexts: number[];
  ms: number;
}

export interface CheckResult {
  agree: boolean;
  strategy: string;
  calls: number;
  measure: ContextMeasure;
  fast: CheckSide;
  reference: CheckSide;
  /** The first call where the two differ, what differs, and each side's value. */
  firstDisagreement: { call: number; what: 'firings' | 'view' | 'context'; fast: unknown; reference: unknown } | null;
}

/** The figure a fast firing reports, by the strategy's rule. */
function figureOf(strategy: string, f: LiveFiring): number | null {
  if (strategy === 'watermark') return typeof f.stats.pendingTokens === 'number' ? f.stats.pendingTokens : null;
  if (strategy === 'two-line') return typeof f.stats.pressure === 'number' ? f.stats.pressure : null;
  if (strategy === 'dag' || strategy === 'rolling' || strategy === 'codex' || strategy === 'claude-code') return f.measured;
  return null;
}

/** The hidden ranges a model-free state leaves (the reference reports those for a step). */
function stateSpans(f: LiveFiring): Array<[number, number]> {
  if (f.state.maskBoundary !== undefined) return [[f.state.maskBoundary, f.state.maskBoundary]];
  return (f.state.droppedRanges ?? []).map(([a, b]) => [a, b]);
}

async function runFast(input: CheckInput, trigger: ContextMeasure): Promise<CheckSide> {
  const store = new MemoryVariantStore();
  const t0 = Date.now();
  const result = await runLive({
    prepared: input.prepared,
    metas: input.metas,
    calls: input.calls,
    model: input.model,
    measure: trigger,
    store,
    commitDelayCalls: input.commitDelayCalls,
    // Each call's turns in an array of this run's own: the store's rows are read after it.
    reusePrefixes: false,
    context: (_end, metas, measured, backgroundPending) => projectedContext(store, metas, measured, backgroundPending),
  });
  const ms = Date.now() - t0;
  const strategy = input.prepared.strategy;
  // A model-free strategy (no prompts) writes no summary: what it hides is in its state.
  const modelFree = input.prepared.definition.prompts === undefined;
  const firings = result.firings.map(
    (f): CheckFiring => ({ call: f.call, kind: f.kind, figure: figureOf(strategy, f), spans: modelFree ? stateSpans(f) : f.created.map((id) => [store.get(id)!.firstPosition, store.get(id)!.lastPosition]) }),
  );
  const views = Array.from(result.calls.viewTokens);
  const contexts = Array.from(result.calls.contextTokens);
  store.clear();
  return { firings, views, contexts, ms };
}

const sameFiring = (a: CheckFiring, b: CheckFiring) =>
  a.call === b.call && a.kind === b.kind && (a.figure === b.figure || (a.figure !== null && b.figure !== null && Math.abs(a.figure - b.figure) < 1e-9)) && JSON.stringify(a.spans) === JSON.stringify(b.spans);

export async function checkReplay(input: CheckInput): Promise<CheckResult> {
  const trigger = triggerMeasureOf(input.prepared.params, input.model);
  const cost = costMeasureOf(input.model);
  const session: RefSession = {
    metas: input.metas,
    calls: input.calls.map((c) => ({ position: c.position, reported: c.reportedContext ?? null })),
    cost,
    trigger,
    commitDelayCalls: Math.max(0, input.commitDelayCalls ?? 1),
  };
  const fast = await runFast(input, trigger);
  const t0 = Date.now();
  const ref = referenceReplay(input.prepared.strategy, input.prepared.params, session);
  const refMs = Date.now() - t0;
  const refFirings: CheckFiring[] = ref.firings.map((f: RefFiring) => ({ call: f.call, kind: f.kind, figure: f.figure, spans: f.spans }));
  const transcript: number[] = [];
  let t = 0;
  let q = 0;
  for (const c of input.calls) {
    for (; q < c.position; q++) t += input.metas[q].tokenCount;
    transcript.push(t);
  }
  const refContexts = ref.views.map((v, k) => readContext(cost, v, session.calls[k].reported === null ? null : { transcriptTokens: transcript[k], tokens: session.calls[k].reported! }).tokens);
  const reference: CheckSide = { firings: refFirings, views: ref.views, contexts: refContexts, ms: refMs };

  let firstDisagreement: CheckResult['firstDisagreement'] = null;
  let i = 0;
  let j = 0;
  for (let k = 0; k < input.calls.length && !firstDisagreement; k++) {
    const a: CheckFiring[] = [];
    const b: CheckFiring[] = [];
    while (i < fast.firings.length && fast.firings[i].call === k) a.push(fast.firings[i++]);
    while (j < refFirings.length && refFirings[j].call === k) b.push(refFirings[j++]);
    if (a.length !== b.length || a.some((x, n) => !sameFiring(x, b[n]))) firstDisagreement = { call: k, what: 'firings', fast: a, reference: b };
    else if (fast.views[k] !== reference.views[k]) firstDisagreement = { call: k, what: 'view', fast: fast.views[k], reference: reference.views[k] };
    else if (fast.contexts[k] !== reference.contexts[k]) firstDisagreement = { call: k, what: 'context', fast: fast.contexts[k], reference: reference.contexts[k] };
  }
  return { agree: firstDisagreement === null, strategy: input.prepared.strategy, calls: input.calls.length, measure: trigger, fast, reference, firstDisagreement };
}
