/**
 * Store rows -> the contract's result shapes for the session and turn operations.
 * Kept apart from the service so the mapping (what the window may see) is in one place:
 * source hashes and raw metadata stay in main.
 */
import { externalCompactionLedger } from '../engine/summary-ledger.js';
import type { DB } from '../store/db.js';
import { childSessions, getSession, listSessions, sessionInfoOf, type SessionSummary } from '../store/sessions.js';
import { listModelCalls } from '../store/model-calls.js';
import { listExternalCompactions, listTurnMetas } from '../store/turns.js';
import { loadSourceChildren } from '../engine/source-children.js';
import { StudioError, type SessionDetail, type SessionInfo, type SessionUsage, type TurnMetaColumns } from '../../shared/contract.js';
import { fitSessionOverhead, transcriptTokensBefore } from '../../shared/usage/overhead.js';

export function sessionInfos(db: DB): SessionInfo[] {
  return listSessions(db).map(sessionInfoOf);
}

export function requireSession(db: DB, sessionId: number): SessionSummary {
  const s = getSession(db, sessionId);
  if (!s) throw new StudioError('not_found', `session ${sessionId} does not exist`);
  return s;
}

export function sessionDetail(db: DB, sessionId: number): SessionDetail {
  const s = requireSession(db, sessionId);
  return {
    ...sessionInfoOf(s),
    // The contract's ExternalCompactionInfo: the source record's id and timestamp stay in main.
    externalCompactions_: listExternalCompactions(db, sessionId).map((e) => ({
      id: e.id,
      trigger: e.trigger,
      preTokens: e.preTokens,
      summaryText: e.summaryText,
      summaryTokenCount: e.summaryTokenCount,
      firstPosition: e.firstPosition,
      lastPosition: e.lastPosition,
      boundaryPosition: e.boundaryPosition,
      // The baseline of the loss ledger: the source tool's summary over the turns it replaced.
      ledger: externalCompactionLedger(db, e),
    })),
    children: childSessions(db, sessionId).map(sessionInfoOf),
  };
}

/** Every turn's planning data as parallel columns: compact on the wire for 100,000 turns. */
export function turnMetaColumns(db: DB, sessionId: number): TurnMetaColumns {
  requireSession(db, sessionId);
  const metas = listTurnMetas(db, sessionId);
  const cols: TurnMetaColumns = { ids: new Array(metas.length), roles: new Array(metas.length), tokens: new Array(metas.length), chars: new Array(metas.length), cycleStart: new Array(metas.length) };
  for (let i = 0; i < metas.length; i++) {
    const m = metas[i];
    cols.ids[i] = m.id;
    cols.roles[i] = m.role;
    cols.tokens[i] = m.tokenCount;
    cols.chars[i] = m.charCount;
    cols.cycleStart[i] = m.cycleStart;
  }
  return cols;
}

/** The session's model calls, transcript tokens before each, and its overhead fit (shared/usage/overhead.ts). */
export function sessionUsage(db: DB, sessionId: number): SessionUsage {
  requireSession(db, sessionId);
  const calls = listModelCalls(db, sessionId);
  const transcriptBefore = transcriptTokensBefore(
    calls,
    listTurnMetas(db, sessionId).map((m) => m.tokenCount),
  );
  // Compactions come ordered by boundary position: the first one ends the uncompacted context.
  const firstCompaction = listExternalCompactions(db, sessionId)[0]?.boundaryPosition ?? null;
  return { calls, overhead: fitSessionOverhead(calls, transcriptBefore, firstCompaction), transcriptBefore, children: loadSourceChildren(db, sessionId) };
}
