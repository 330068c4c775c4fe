/**
 * Turn metas for the planners, rebuilt from the columns `turnMetas` sends (parallel arrays
 * are several times smaller on the wire than 100,000 objects). Built once per session and
 * memoized by the caller: a slider move re-plans over the same array.
 */
import type { TurnMetaColumns } from '../../shared/contract.js';
import type { TurnMeta } from '../../shared/model/turn.js';

export function metasFromColumns(columns: TurnMetaColumns): TurnMeta[] {
  const n = columns.ids.length;
  const out: TurnMeta[] = new Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = { id: columns.ids[i], position: i, role: columns.roles[i], charCount: columns.chars[i], tokenCount: columns.tokens[i], cycleStart: columns.cycleStart[i] };
  }
  return out;
}

/** Sum of the session's turn tokens (what the model would see without compaction). */
export function totalTokens(columns: TurnMetaColumns | undefined): number {
  if (!columns) return 0;
  let sum = 0;
  for (const t of columns.tokens) sum += t;
  return sum;
}
