/**
 * The variant's context measure at a point of a session, for every caller that plans or
 * runs outside the live replay: Compact, `plan`, `compact --as-of-call N` and the window's
 * gauge and preview. The live replay (live.ts) resolves the same measure from the same
 * session fit (`triggerMeasureOf`) and passes the same reported figure at each call, so a
 * plan "as of call N" reads exactly the context the replay reads there.
 */
import { resolveMeasure, measureChoiceOf, type ContextMeasure, type MeasureInput } from '../usage/measure.js';
import type { OverheadFit } from '../usage/overhead.js';
import type { TurnMeta } from '../model/turn.js';
import { replayInputs, type ReplaySource } from './timeline.js';

/** The variant's measure for a session: its usage fit, else the constant overhead (default 0). */
export function sessionMeasure(src: { fit: Pick<OverheadFit, 'a' | 'b'> | null; overheadTokens?: number }, params: Readonly<Record<string, unknown>>): ContextMeasure {
  return resolveMeasure(measureChoiceOf(params), src.fit, src.overheadTokens ?? 0);
}

/**
 * The measure, and at "as of call N" the source's reported figure for call N with the
 * transcript it carried (null for a plan of the whole session: the next call was never sent).
 */
export function measureAtCall(src: ReplaySource, params: Readonly<Record<string, unknown>>, asOfCall: number | null): Required<MeasureInput> {
  const measure = sessionMeasure(src, params);
  if (asOfCall === null) return { measure, reported: null };
  const call = replayInputs(src).calls[asOfCall];
  if (!call || call.reportedContext === null || call.reportedContext === undefined) return { measure, reported: null };
  return { measure, reported: { transcriptTokens: transcriptBefore(src.metas, call.position), tokens: call.reportedContext } };
}

function transcriptBefore(metas: readonly TurnMeta[], position: number): number {
  let t = 0;
  for (let i = 0; i < position && i < metas.length; i++) t += metas[i].tokenCount;
  return t;
}
