/**
 * `replay --check` over a stored session: the fast replay and the reference replay
 * (shared/replay/check.ts) on the session's turns, calls and context model. Reads only.
 */
import type { DB } from '../store/db.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import { replayInputs } from '../../shared/replay/timeline.js';
import { checkReplay, type CheckResult } from '../../shared/replay/check.js';
import { loadReplaySource, prepare } from './engine.js';

export async function checkSessionReplay(db: DB, o: { sessionId: number; strategy: StrategyName; params?: Record<string, unknown>; overheadTokens?: number; commitDelayCalls?: number }): Promise<CheckResult> {
  const source = loadReplaySource(db, o.sessionId, o.overheadTokens);
  const prepared = prepare(o.strategy, o.params ?? {});
  const inputs = replayInputs(source);
  return checkReplay({ prepared, metas: source.metas, calls: inputs.calls, model: inputs.model, commitDelayCalls: o.commitDelayCalls });
}
