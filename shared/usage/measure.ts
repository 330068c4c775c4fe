/**
 * The context measure: THE rule for "how many tokens the model receives" that every token
 * threshold of every strategy is compared with, in the replay, Compact, `plan`,
 * `compact --as-of-call N`, the window's gauge and preview, the timeline and sweeps.
 *
 * Two measures (the `contextMeasure` parameter of the token-threshold strategies):
 * - `calibrated`: what the provider counts. At a call where the source reported its context
 *   and the variant still shows the whole transcript, that reported figure; otherwise the
 *   session's usage fit `a + b × view` (shared/usage/overhead.ts): `a` the fixed overhead
 *   (system prompt, tool schemas), `b` the provider tokenizer's ratio to ours. A session with
 *   no usage to fit has a = the caller's constant overhead (default 0) and b = 1.
 * - `transcript`: the raw tokenizer counts of the view (o200k or the session's tokenizer), no
 *   overhead, no ratio.
 * `auto` (the default) is `calibrated` when the session has a usage fit, else `transcript`.
 *
 * A threshold on part of the context (watermark's pending tokens) is measured with the ratio
 * alone (`measurePart`): the fixed overhead belongs to the whole prompt, not to a stretch of it.
 */
import type { OverheadFit } from './overhead.js';

/** The parameter's values, in the order of its choices (`contextMeasure` 0, 1, 2). */
export const CONTEXT_MEASURE_CHOICES = ['auto', 'calibrated', 'transcript'] as const;
export type ContextMeasureChoice = (typeof CONTEXT_MEASURE_CHOICES)[number];
export const MEASURE_AUTO = 0;
export const MEASURE_CALIBRATED = 1;
export const MEASURE_TRANSCRIPT = 2;

/** A measure resolved for one session. */
export interface ContextMeasure {
  name: 'calibrated' | 'transcript';
  /** Fixed tokens per call (0 for `transcript`). */
  fixed: number;
  /** Provider tokens per transcript token (1 for `transcript`). */
  ratio: number;
  /** Where fixed and ratio come from: the session's usage fit, the caller's constant, or none (raw counts). */
  source: 'fit' | 'parameter' | 'raw';
}

/** The transcript measure: raw counts. Also what a caller that knows nothing of the session gets. */
export const TRANSCRIPT_MEASURE: ContextMeasure = { name: 'transcript', fixed: 0, ratio: 1, source: 'raw' };

/** The `contextMeasure` parameter's value (0, 1, 2) as its choice; anything else is `auto`. */
export function measureChoiceOf(params: Readonly<Record<string, unknown>>): ContextMeasureChoice {
  const v = params.contextMeasure;
  return v === MEASURE_CALIBRATED ? 'calibrated' : v === MEASURE_TRANSCRIPT ? 'transcript' : 'auto';
}

/** Resolves the parameter for a session: its usage fit (or null) and the constant overhead to use without one. */
export function resolveMeasure(choice: ContextMeasureChoice, fit: Pick<OverheadFit, 'a' | 'b'> | null, overheadTokens = 0): ContextMeasure {
  if (choice === 'transcript' || (choice === 'auto' && !fit)) return TRANSCRIPT_MEASURE;
  if (fit) return { name: 'calibrated', fixed: fit.a, ratio: fit.b, source: 'fit' };
  return { name: 'calibrated', fixed: overheadTokens, ratio: 1, source: 'parameter' };
}

/**
 * What the source reported for one call: the context it sent and the transcript tokens that
 * context carried. It is the calibrated context of a view only when that view IS that
 * transcript (nothing hidden, masked or summarized: the view's tokens equal `transcriptTokens`).
 */
export interface ReportedContext {
  transcriptTokens: number;
  tokens: number;
}

/** The context at one point: the view's transcript tokens and what the measure makes of them. */
export interface ContextReading {
  measure: ContextMeasure;
  /** Transcript tokens of what the variant shows (summaries at their stored size). */
  viewTokens: number;
  /** The measured context: every whole-context threshold is compared with this. */
  tokens: number;
  /** True when `tokens` is the source's reported figure for this call. */
  reported: boolean;
}

/**
 * THE function: the context the model receives with `viewTokens` of view under `measure`.
 * `reported` (the source's figure for this call, or null) is used by the calibrated measure
 * when the view is exactly the transcript the source sent.
 */
export function readContext(measure: ContextMeasure, viewTokens: number, reported: ReportedContext | null = null): ContextReading {
  const tokens = contextTokens(measure, viewTokens, reported ? reported.tokens : NaN, reported ? reported.transcriptTokens : NaN);
  return { measure, viewTokens, tokens, reported: usesReported(measure, viewTokens, reported ? reported.tokens : NaN, reported ? reported.transcriptTokens : NaN) };
}

const usesReported = (m: ContextMeasure, view: number, reportedTokens: number, transcriptTokens: number) => m.name === 'calibrated' && view === transcriptTokens && Number.isFinite(reportedTokens);

/**
 * readContext's figure alone, from plain numbers (NaN: nothing reported): the live replay
 * reads it at every call of a 50,000-call projection without making an object per call.
 */
export function contextTokens(measure: ContextMeasure, viewTokens: number, reportedTokens: number, transcriptTokens: number): number {
  if (measure.name === 'transcript') return viewTokens;
  if (usesReported(measure, viewTokens, reportedTokens, transcriptTokens)) return reportedTokens;
  return Math.round(measure.fixed + measure.ratio * viewTokens);
}

/** The measure and the source's figure a plan or pass input carries (absent: the transcript measure). */
export interface MeasureInput {
  measure?: ContextMeasure;
  reported?: ReportedContext | null;
}

/** readContext over an input's measure. */
export const readInput = (input: MeasureInput, viewTokens: number): ContextReading => readContext(input.measure ?? TRANSCRIPT_MEASURE, viewTokens, input.reported ?? null);

/** A stretch of `tokens` transcript tokens as the measure counts it (the ratio only). */
export function measurePart(measure: ContextMeasure | undefined, tokens: number): number {
  return !measure || measure.name === 'transcript' ? tokens : Math.round(measure.ratio * tokens);
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

/** The measure's name with what it adds, for labels: "calibrated (usage fit: 25,395 fixed + 1.280 × transcript)". */
export function describeMeasure(m: ContextMeasure): string {
  if (m.name === 'transcript') return 'transcript tokens';
  const from = m.source === 'fit' ? 'usage fit' : 'constant overhead';
  return `calibrated (${from}: ${fmt(m.fixed)} fixed + ${m.ratio.toFixed(3)} × transcript)`;
}

/**
 * A reading as a reason's text: "150,050 calibrated tokens (101,346 transcript + 25,395 fixed
 * + 23,309 from the tokenizer ratio 1.230)", "… (reported by the source …)", "101,346 transcript tokens".
 */
export function describeReading(r: ContextReading): string {
  if (r.measure.name === 'transcript') return `${fmt(r.tokens)} transcript tokens`;
  if (r.reported) return `${fmt(r.tokens)} calibrated tokens (reported by the source at this call; ${fmt(r.viewTokens)} transcript)`;
  const ratioPart = r.tokens - r.viewTokens - Math.round(r.measure.fixed);
  return `${fmt(r.tokens)} calibrated tokens (${fmt(r.viewTokens)} transcript + ${fmt(r.measure.fixed)} fixed + ${fmt(ratioPart)} from the tokenizer ratio ${r.measure.ratio.toFixed(3)})`;
}

/** A stretch measured (watermark's pending tokens) as text: "40,200 calibrated tokens (31,406 transcript × 1.280)". */
export function describePart(m: ContextMeasure | undefined, rawTokens: number): string {
  if (!m || m.name === 'transcript') return `${fmt(rawTokens)} transcript tokens`;
  return `${fmt(measurePart(m, rawTokens))} calibrated tokens (${fmt(rawTokens)} transcript × ${m.ratio.toFixed(3)})`;
}

/**
 * A reading moved onto another count of the same moment (dag's reference trigger count):
 * the same overhead on top of `viewTokens`.
 */
export function readingFor(r: ContextReading, viewTokens: number): ContextReading {
  if (r.viewTokens === viewTokens) return r;
  return { measure: r.measure, viewTokens, tokens: viewTokens + (r.tokens - r.viewTokens), reported: r.reported };
}
