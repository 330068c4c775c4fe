/**
 * Synthetic TurnMeta arrays for planner tests, written as a compact role string:
 *   s = system, u = user, a = assistant, c = assistant with a tool_use,
 *   r = tool result answering the nearest preceding 'c' (cycleStart = that position).
 * Ids are 1000 + position so a test can tell ids from positions.
 */
import type { Role, TurnMeta } from '../../shared/model/turn.js';

export interface SyntheticOptions {
  /** Tokens per turn: one number for all, or one per turn. Default 100. */
  tokens?: number | number[];
  /** Characters per turn: one number for all, or one per turn. Default tokens × 4. */
  chars?: number | number[];
  /** Explicit cycleStart overrides by position (a result answering an older call). */
  cycleStarts?: Record<number, number>;
}

export function metasOf(roles: string, opts: SyntheticOptions = {}): TurnMeta[] {
  const out: TurnMeta[] = [];
  let lastCall = -1;
  [...roles].forEach((ch, i) => {
    const role: Role = ch === 's' ? 'system' : ch === 'u' || ch === 'r' ? 'user' : 'assistant';
    const tokens = typeof opts.tokens === 'number' ? opts.tokens : opts.tokens ? opts.tokens[i] : 100;
    const chars = typeof opts.chars === 'number' ? opts.chars : opts.chars ? opts.chars[i] : tokens * 4;
    let cycleStart = i;
    if (ch === 'r') {
      if (lastCall < 0) throw new Error(`result at ${i} has no preceding call`);
      cycleStart = lastCall;
    }
    if (opts.cycleStarts && opts.cycleStarts[i] !== undefined) cycleStart = opts.cycleStarts[i];
    if (ch === 'c') lastCall = i;
    out.push({ id: 1000 + i, position: i, role, tokenCount: tokens, charCount: chars, cycleStart });
  });
  return out;
}

/** Ids of positions [from, to). */
export function idsOf(from: number, to: number, skip: number[] = []): number[] {
  const ids: number[] = [];
  for (let p = from; p < to; p++) if (!skip.includes(p)) ids.push(1000 + p);
  return ids;
}
