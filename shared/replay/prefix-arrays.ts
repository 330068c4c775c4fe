/**
 * The turns before a call, as an array of exactly that length, for a live run that asks for
 * longer and longer prefixes of one session (live.ts): what the planners read at a firing.
 *
 * `growingPrefixes`: one array grown by push. It reallocates its store about log(n) times, ~2.7 MB
 * per run over a 100,000-turn session; its arrays stay valid after the run (a replay's
 * summaries list their turn ids from them when the engine stores them).
 *
 * `reusedPrefixes`: the window's projected timeline, which reads nothing after its run and runs
 * on every slider frame over the same session, allocates none of that. Each session keeps a
 * ladder of arrays, rung j holding up to ceil(n / 2^j) of its first turns (made once by
 * `slice`, which allocates the exact capacity). A prefix of length l lives on the lowest rung
 * that holds it, cut back or pushed to length l. Neither reallocates: V8 trims an array's
 * store only when the new length is under half its capacity, and l is over half of its rung's
 * capacity by the choice of the rung. The rungs hold the session's turns at their positions
 * and nothing else; one run holds a session's ladder at a time, and a second run at the same
 * time grows its own array.
 */
import type { TurnMeta } from '../model/turn.js';

export interface PrefixArrays {
  /** The first `end` turns. Valid until the next call with a larger `end` on another rung, or `release`. */
  at(end: number): TurnMeta[];
  /** The run is over: the ladder may serve the next one. */
  release(): void;
}

/** Prefixes up to this length come from one small array of their own. */
const SMALL = 64;

interface Ladder {
  rungs: Array<TurnMeta[] | undefined>;
  busy: boolean;
}
const ladders = new WeakMap<readonly TurnMeta[], Ladder>();

export function growingPrefixes(metas: readonly TurnMeta[]): PrefixArrays {
  const grown: TurnMeta[] = [];
  return {
    at(end) {
      for (let p = grown.length; p < end; p++) grown.push(metas[p]);
      return grown;
    },
    release() {},
  };
}

export function reusedPrefixes(metas: readonly TurnMeta[]): PrefixArrays {
  let ladder = ladders.get(metas);
  if (!ladder) ladders.set(metas, (ladder = { rungs: [], busy: false }));
  if (ladder.busy) return growingPrefixes(metas);
  const held = ladder;
  held.busy = true;
  const n = metas.length;
  let small: TurnMeta[] | null = null;
  return {
    at(end) {
      if (end <= SMALL) return fit((small ??= []), metas, end);
      const j = rungFor(n, end);
      let rung = held.rungs[j];
      if (!rung) held.rungs[j] = rung = metas.slice(0, rungCapacity(n, j));
      return fit(rung, metas, end);
    },
    release() {
      held.busy = false;
    },
  };
}

export function rungCapacity(n: number, j: number): number {
  return Math.ceil(n / 2 ** j);
}

/**
 * The rung of a prefix of `end` turns (end > 0): the shortest that holds it, so `end` is over
 * half its capacity and setting the length never makes V8 trim or grow its store.
 */
export function rungFor(n: number, end: number): number {
  let j = Math.max(0, Math.floor(Math.log2(n / end)));
  while (j > 0 && rungCapacity(n, j) < end) j--;
  while (rungCapacity(n, j + 1) >= end) j++;
  return j;
}

/** The array at length `end` (its entries are always the session's turns at their positions). */
function fit(a: TurnMeta[], metas: readonly TurnMeta[], end: number): TurnMeta[] {
  if (a.length > end) a.length = end;
  else for (let p = a.length; p < end; p++) a.push(metas[p]);
  return a;
}
