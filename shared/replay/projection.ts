/**
 * The projected timeline the window redraws on every slider frame: the live replay
 * (live.ts) with every summary a stand-in of its target size — no summarizer call, no
 * text. Same loop, same passes, same triggers as the real replay; only the summaries'
 * sizes are projected (a real summary may come out shorter than its target).
 */
import type { PreparedStrategy } from '../strategies/index.js';
import type { TurnMeta } from '../model/turn.js';
import type { AbortSignalLike } from '../strategies/summarizer.js';
import type { PassContext, TieredSummary } from '../passes/context.js';
import { MemoryVariantStore } from './memory-store.js';
import { callsOf, runLive, type ContextModel, type LiveCall, type LiveResult } from './live.js';
import type { MeasureInput } from '../usage/measure.js';

export const PROJECTED_MODEL = 'projected';
/** The text of every stand-in summary (its length is what a rolling summary's characters count). */
export const PROJECTED_SUMMARY_TEXT = '[projected summary]';

export interface ProjectionInput {
  prepared: PreparedStrategy;
  metas: readonly TurnMeta[];
  model: ContextModel;
  /** Default: every assistant turn, with its own tokens as output. */
  calls?: readonly LiveCall[];
  commitDelayCalls?: number;
  /** False: every pass through the full machinery (the reference for model-free steps, see LiveOptions.fastSteps). */
  fastSteps?: boolean;
  /** False: the turns before each call in one array grown for this run, not the session's reused ones (the reference prefix-arrays.ts is tested against). */
  reusePrefixes?: boolean;
  /** Stops the projection (the window drops a projection the sliders have moved past). */
  signal?: AbortSignalLike;
}

const NEVER = { aborted: false, addEventListener() {}, removeEventListener() {} };

/** A projected summary: the stand-in of its target size. */
export const projectedSummary = (targetTokens: number): TieredSummary => ({
  text: PROJECTED_SUMMARY_TEXT,
  tier: 'normal',
  model: PROJECTED_MODEL,
  tokenCount: Math.max(1, targetTokens),
  cacheKey: '',
  cacheHit: false,
  calls: 0,
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  latencyMs: 0,
});

/** The pass context of a projected firing: stand-in summaries, no text, no events (shared by the projection and the replay check). */
export function projectedContext(store: MemoryVariantStore, metas: TurnMeta[], measured: Required<MeasureInput>, backgroundPending: boolean): PassContext {
  return {
    sessionId: 0,
    variant: { id: 0, summarizer: { kind: 'extractive', promptVersion: PROJECTED_MODEL } },
    metas,
    readTurns: () => [],
    store,
    state: store.state(),
    summarizer: { promptVersion: PROJECTED_MODEL },
    concurrency: 1,
    signal: NEVER,
    projected: true,
    ...measured,
    live: { backgroundPending },
    summarize: async (req) => projectedSummary(req.targetTokens),
    countTokens: (text) => Math.ceil(text.length / 4),
    progress() {},
    event() {},
    checkCancelled() {},
  };
}

export async function projectTimeline(input: ProjectionInput): Promise<LiveResult> {
  const store = new MemoryVariantStore();
  const calls = input.calls ?? callsOf(input.metas);
  try {
    return await runLive({
      prepared: input.prepared,
      metas: input.metas,
      calls,
      model: input.model,
      store,
      commitDelayCalls: input.commitDelayCalls,
      fastSteps: input.fastSteps,
      signal: input.signal,
      // Nothing reads the turns after the run (the store is cleared below).
      reusePrefixes: input.reusePrefixes !== false,
      context: (_end, metas, measured, backgroundPending) => projectedContext(store, metas, measured, backgroundPending),
    });
  } finally {
    // Nothing reads the store after the run (the result carries the state and the firings).
    store.clear();
  }
}
