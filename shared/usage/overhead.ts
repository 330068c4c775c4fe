/**
 * Overhead: the tokens a model call carries beyond the transcript (system prompt, tool
 * schemas), and the per-session model that turns a transcript size into the context the
 * model really received.
 *
 * Measured on real Claude Code sessions (the spotter fixture and other sessions of the same tool version; figures in docs/importers.md): a constant offset
 * (reported − transcript at one call) is wrong by up to 2× elsewhere in the session,
 * because the provider's tokenizer counts more tokens than ours (o200k_base) for the same
 * text. So the model has a fixed part `a` and a ratio `b`:
 *
 *     reported ≈ a + b × transcriptTokensBefore(call)
 *
 * fitted by least squares over the session's calls with a trusted reported context
 * (shared/usage/types.ts reportedContext: not a placeholder, input figure known).
 *
 * Only calls before the session's first external compaction enter the fit: once the
 * source tool compacted (Claude Code's compact_boundary), what it sends is its summary plus
 * the turns after the boundary, no longer the stored transcript up to the call, so those
 * calls would fit a different line. Where a call has a reported figure, use that figure;
 * this model is for contexts that were never sent (a strategy's counterfactual).
 */
import { reportedContext, type ModelCallUsage } from './types.js';

/** The fitted line and how well it fits the calls it was fitted on. */
export interface OverheadFit {
  /** Fixed tokens per call (system prompt, tool schemas), in the provider's tokens. */
  a: number;
  /** Provider tokens per stored (o200k/cl100k) transcript token. */
  b: number;
  /** Calls the fit used. */
  calls: number;
  /** Largest |reported − estimate| / reported over those calls, in percent. */
  maxErrorPct: number;
  meanErrorPct: number;
  /** Standard deviation of the residuals (reported − estimate), in tokens. */
  residualSpread: number;
}

/**
 * Overhead used when a session has fewer than 2 trusted calls to fit (no usage in the
 * source): 0, i.e. the context is the transcript alone. The app has no honest constant to
 * offer instead (Claude Code's is 23–27k, an OpenAI chat export's is unknown); a caller
 * that knows one passes it as `overheadTokens`.
 */
export const DEFAULT_OVERHEAD_TOKENS = 0;

/** Transcript tokens before each call: the sum of token counts of turns at positions < call.position. */
export function transcriptTokensBefore(calls: readonly Pick<ModelCallUsage, 'position'>[], turnTokenCounts: readonly number[]): number[] {
  const prefix = new Array<number>(turnTokenCounts.length + 1);
  prefix[0] = 0;
  for (let i = 0; i < turnTokenCounts.length; i++) prefix[i + 1] = prefix[i] + turnTokenCounts[i];
  return calls.map((c) => prefix[Math.min(Math.max(c.position, 0), turnTokenCounts.length)]);
}

/** One point of the fit: the transcript a call carried and the context it reported. */
export interface OverheadPoint {
  transcript: number;
  reported: number;
}

/**
 * Least-squares line through the points; null when fewer than 2. When every point has
 * the same transcript size the slope is undetermined: b = 1 (the transcript counts as is)
 * and a = the mean difference.
 */
export function fitOverheadPoints(points: readonly OverheadPoint[]): OverheadFit | null {
  const n = points.length;
  if (n < 2) return null;
  let sx = 0;
  let sy = 0;
  for (const p of points) {
    sx += p.transcript;
    sy += p.reported;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.transcript - mx) ** 2;
    sxy += (p.transcript - mx) * (p.reported - my);
  }
  const b = sxx > 0 ? sxy / sxx : 1;
  const a = my - b * mx;
  let maxErr = 0;
  let sumErr = 0;
  let sumSq = 0;
  for (const p of points) {
    const residual = p.reported - (a + b * p.transcript);
    const errPct = p.reported > 0 ? (Math.abs(residual) / p.reported) * 100 : 0;
    maxErr = Math.max(maxErr, errPct);
    sumErr += errPct;
    sumSq += residual * residual;
  }
  return { a, b, calls: n, maxErrorPct: maxErr, meanErrorPct: sumErr / n, residualSpread: Math.sqrt(sumSq / n) };
}

/**
 * The session's fit over its calls with a trusted reported context, taking only calls
 * before `firstCompactionPosition` (the boundary position of the session's first external
 * compaction; null when it has none). `transcriptBefore[i]` belongs to `calls[i]`.
 */
export function fitSessionOverhead(calls: readonly ModelCallUsage[], transcriptBefore: readonly number[], firstCompactionPosition: number | null): OverheadFit | null {
  const points: OverheadPoint[] = [];
  calls.forEach((c, i) => {
    if (firstCompactionPosition !== null && c.position >= firstCompactionPosition) return;
    const reported = reportedContext(c);
    if (reported !== null) points.push({ transcript: transcriptBefore[i], reported });
  });
  return fitOverheadPoints(points);
}

/**
 * The context a model call would carry with `transcriptTokens` of transcript:
 * a + b × transcript with a fit, else transcript + `overheadTokens`.
 */
export function contextEstimate(fit: OverheadFit | null, transcriptTokens: number, overheadTokens: number = DEFAULT_OVERHEAD_TOKENS): number {
  return fit ? fit.a + fit.b * transcriptTokens : transcriptTokens + overheadTokens;
}
