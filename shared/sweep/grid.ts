/**
 * A sweep's points, pure: `--grid key=v1,v2,…` axes parsed, their cartesian product in a
 * deterministic order (axes in the order given, the last axis varying fastest), crossed with
 * the sessions session-major, and the share of one shard (`--shard i/n`: every n-th pair
 * starting at the i-th, 1-based). Every machine that runs a shard computes the same list, so
 * the shards cover the sweep exactly once between them.
 */
import type { SweepAxis } from './types.js';

export class SweepArgError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SweepArgError';
  }
}

/** `key=v1,v2,v3` as an axis; values are numbers, kept in the order given, duplicates refused. */
export function parseGridAxis(text: string): SweepAxis {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new SweepArgError(`--grid expects KEY=V1,V2,…, got "${text}"`);
  const name = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1).split(',').map((v) => v.trim());
  if (raw.length === 0 || raw.some((v) => v === '')) throw new SweepArgError(`--grid ${name}: every value must be a number, got "${text.slice(eq + 1)}"`);
  const values = raw.map((v) => {
    const n = Number(v);
    if (!Number.isFinite(n)) throw new SweepArgError(`--grid ${name}: "${v}" is not a number`);
    return n;
  });
  if (new Set(values).size !== values.length) throw new SweepArgError(`--grid ${name}: a value is listed twice`);
  return { name, values };
}

/** The axes of several `--grid` options; a parameter named twice is refused. */
export function parseGrid(texts: readonly string[]): SweepAxis[] {
  if (texts.length === 0) throw new SweepArgError('at least one --grid KEY=V1,V2,… is required');
  const axes = texts.map(parseGridAxis);
  const seen = new Set<string>();
  for (const a of axes) {
    if (seen.has(a.name)) throw new SweepArgError(`--grid ${a.name} is given twice`);
    seen.add(a.name);
  }
  return axes;
}

/** The cartesian product of the axes: the first axis varies slowest, the last fastest. */
export function gridPoints(axes: readonly SweepAxis[]): Array<Record<string, number>> {
  let points: Array<Record<string, number>> = [{}];
  for (const axis of axes) points = points.flatMap((p) => axis.values.map((v) => ({ ...p, [axis.name]: v })));
  return points;
}

export interface SweepPair {
  /** Place in the whole sweep: sessionIndex × points + pointIndex. */
  index: number;
  sessionId: number;
  params: Record<string, number>;
}

/** Every (session, point) pair, session-major. */
export function sweepPairs(sessionIds: readonly number[], points: ReadonlyArray<Record<string, number>>): SweepPair[] {
  return sessionIds.flatMap((sessionId, s) => points.map((params, p) => ({ index: s * points.length + p, sessionId, params })));
}

/** `i/n` with 1 ≤ i ≤ n. */
export function parseShard(text: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new SweepArgError(`--shard expects I/N (e.g. 1/4), got "${text}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) throw new SweepArgError(`--shard ${text}: I must be between 1 and N`);
  return { index, count };
}

/** The pairs of shard i of n: every n-th pair starting at the i-th (1-based). */
export function shardPairs<T extends { index: number }>(pairs: readonly T[], shard: { index: number; count: number }): T[] {
  return pairs.filter((p) => p.index % shard.count === shard.index - 1);
}

/** `keepFirst=0 maxTurns=5`: a point as the progress line and the chart's hover name it. */
export function pointLabel(params: Readonly<Record<string, number>>): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}
