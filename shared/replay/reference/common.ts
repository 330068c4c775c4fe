/**
 * The reference replay's vocabulary: the executable specification of each strategy's live
 * rule (one file per strategy beside this one), written from the design texts the strategies
 * cite, as plain loops evaluated at every model call. No span index, no prefix sums, no
 * pruning, no caches: a cut's tool-cycle safety is checked turn by turn, a view's tokens are
 * summed turn by turn. Quadratic on purpose. It is never used by the window; `replay --check`
 * and test/node/replay-reference.test.ts hold the fast replay (live.ts) to it.
 *
 * Summaries are the projection's stand-ins (shared/replay/projection.ts): each one is
 * `max(1, targetTokens)` tokens of the stand-in text, whatever a summarizer would write, so
 * the two replays see the same sizes and any difference is a difference of rule.
 *
 * Counting conventions of every design here: system turns are never summarized, dropped or
 * masked, and conversation (non-system) turns are what the counts count.
 */
import type { TurnMeta } from '../../model/turn.js';
import { readContext, type ContextMeasure } from '../../usage/measure.js';
import { PROJECTED_SUMMARY_TEXT } from '../projection.js';

/** One model call: the assistant turn at `position` answers turns [0, position). */
export interface RefCall {
  position: number;
  /** What the source reported for this call while it sent the uncompacted transcript, else null. */
  reported: number | null;
}

export interface RefSession {
  metas: readonly TurnMeta[];
  calls: readonly RefCall[];
  /** What the model received (the cost model: the session's calibrated context model). */
  cost: ContextMeasure;
  /** What the variant's thresholds count (its contextMeasure). */
  trigger: ContextMeasure;
  /** Model calls after which a deferred (background) pass lands. */
  commitDelayCalls: number;
}

/** A firing: the call, what the rule compared, and what it took out of the view. */
export interface RefFiring {
  call: number;
  kind: 'fire' | 'commit';
  /** The rule's own figure at the firing: the measured context (dag, rolling), pending tokens (watermark), pressure (two-line), null for the turn-count rules. */
  figure: number | null;
  /** Turn ranges [first, last] (conversation turns at both ends) of the summaries made, in order; model-free: the hidden ranges after it. */
  spans: Array<[number, number]>;
}

export interface RefResult {
  /** Per call: the view's transcript tokens the model received at that call (after any firing there). */
  views: number[];
  firings: RefFiring[];
}

/** A summary as the reference keeps it. */
export interface RefSummary {
  id: number;
  kind: 'leaf' | 'condensed' | 'rolling' | 'watermark' | 'digest' | 'chunk';
  depth: number;
  /** Conversation turns it stands for, inclusive (through its children). */
  first: number;
  last: number;
  tokens: number;
  chars: number;
  compacted: boolean;
}

/** A stand-in summary's size. */
export const standInTokens = (targetTokens: number): number => Math.max(1, targetTokens);
export const STAND_IN_CHARS = PROJECTED_SUMMARY_TEXT.length;

export const isConv = (m: TurnMeta): boolean => m.role !== 'system';

/**
 * A cut b is tool-cycle safe when no turn at or after it answers a call before it, anywhere in
 * the session: a call still open at a model call (its result arrives later) is never cut from
 * that result, which would otherwise arrive answering a call the model no longer sees.
 */
export function isSafeCut(metas: readonly TurnMeta[], b: number): boolean {
  for (let p = b; p < metas.length; p++) if (metas[p].cycleStart < b) return false;
  return true;
}

export function safeAtOrBefore(metas: readonly TurnMeta[], b: number): number {
  for (let c = b; c > 0; c--) if (isSafeCut(metas, c)) return c;
  return 0;
}

export function safeAtOrAfter(metas: readonly TurnMeta[], b: number): number {
  for (let c = Math.max(0, b); c < metas.length; c++) if (isSafeCut(metas, c)) return c;
  return metas.length;
}

export function convCount(metas: readonly TurnMeta[], from: number, to: number): number {
  let n = 0;
  for (let p = Math.max(0, from); p < to; p++) if (isConv(metas[p])) n++;
  return n;
}

export function convTokens(metas: readonly TurnMeta[], from: number, to: number): number {
  let n = 0;
  for (let p = Math.max(0, from); p < to; p++) if (isConv(metas[p])) n += metas[p].tokenCount;
  return n;
}

export function convChars(metas: readonly TurnMeta[], from: number, to: number): number {
  let n = 0;
  for (let p = Math.max(0, from); p < to; p++) if (isConv(metas[p])) n += metas[p].charCount;
  return n;
}

export function allTokens(metas: readonly TurnMeta[], end: number): number {
  let n = 0;
  for (let p = 0; p < end; p++) n += metas[p].tokenCount;
  return n;
}

/** Position of the k-th (0-based) conversation turn before `end`, or `end` when there are not that many. */
export function convPosition(metas: readonly TurnMeta[], end: number, k: number): number {
  if (k < 0) return 0;
  let seen = 0;
  for (let p = 0; p < end; p++) {
    if (!isConv(metas[p])) continue;
    if (seen === k) return p;
    seen++;
  }
  return end;
}

/** The first and last conversation turns of [from, to), or null when it holds none. */
export function convEdges(metas: readonly TurnMeta[], from: number, to: number): [number, number] | null {
  let first = -1;
  let last = -1;
  for (let p = from; p < to; p++) {
    if (!isConv(metas[p])) continue;
    if (first < 0) first = p;
    last = p;
  }
  return first < 0 ? null : [first, last];
}

/** Leading system turns: the stable prefix. */
export function systemPrefixEnd(metas: readonly TurnMeta[], end: number): number {
  let p = 0;
  while (p < end && !isConv(metas[p])) p++;
  return p;
}

/** Is position p inside one of the inclusive ranges? */
export const inRanges = (ranges: ReadonlyArray<readonly [number, number]>, p: number): boolean => ranges.some(([a, b]) => a <= p && p <= b);

/**
 * The view's tokens before `end` with these summaries live and these conversation turns
 * hidden: every turn not hidden, plus every live summary.
 */
export function viewTokens(metas: readonly TurnMeta[], end: number, hidden: (p: number) => boolean, live: readonly Pick<RefSummary, 'tokens'>[]): number {
  let n = 0;
  for (let p = 0; p < end; p++) if (!isConv(metas[p]) || !hidden(p)) n += metas[p].tokenCount;
  for (const s of live) n += s.tokens;
  return n;
}

/** The source's reported figure for a call, usable while the view is the transcript it sent. */
export function reportedOf(s: RefSession, k: number): { transcriptTokens: number; tokens: number } | null {
  const r = s.calls[k].reported;
  return r === null ? null : { transcriptTokens: allTokens(s.metas, s.calls[k].position), tokens: r };
}

/** The context the variant's thresholds compare with at call k, for a view of `view` tokens. */
export function measuredAt(s: RefSession, k: number, view: number): number {
  return readContext(s.trigger, view, reportedOf(s, k)).tokens;
}
