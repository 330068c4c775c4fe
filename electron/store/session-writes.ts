/**
 * The write side of sessions and turns: the statements an import runs, prepared once per
 * import (electron/importers/writer.ts calls them inside the import's single transaction).
 * Turns, tool cycles and external compactions are written once and never updated
 * (migration 001's triggers); the session row gets its totals after its turns.
 */
import type { DB } from './db.js';
import { prepareInsertModelCall } from './model-calls.js';
import type { ModelCallUsage } from '../../shared/usage/types.js';
import type { ExternalCompactionInfo } from '../../shared/contract.js';
import type { Role } from '../../shared/model/turn.js';

export interface NewSessionRow {
  title: string;
  format: string;
  sourceFile: string;
  sourceHash: string;
  createdAt: string;
  parentSessionId: number | null;
  agentId: string | null;
  tokenizer: string;
}

export interface NewTurnRow {
  sessionId: number;
  position: number;
  role: Role;
  /** The blocks, already serialised (each turn is serialised once). */
  blocksJson: string;
  text: string;
  tokenCount: number;
  sourceIds: readonly string[];
  timestamp: string | null;
  model: string | null;
  agentId: string | null;
}

export interface NewToolCycleRow {
  sessionId: number;
  toolUseId: string;
  toolName: string;
  usePosition: number;
  resultPosition: number;
  isError: boolean;
}

/** The contract's ExternalCompactionInfo as written at import (before it has an id), with what only the store keeps. */
export type NewExternalCompactionRow = Omit<ExternalCompactionInfo, 'id'> & {
  sessionId: number;
  sourceId: string | null;
  timestamp: string | null;
};

export interface SessionTotals {
  title: string;
  startedAt: string | null;
  turnCount: number;
  tokenCount: number;
  toolCallCount: number;
  metadata: Record<string, unknown>;
}

export interface SessionWrites {
  /** Inserts the session row (totals zero); returns its id. */
  insertSession(row: NewSessionRow): number;
  /** Returns the new turn's id. */
  insertTurn(row: NewTurnRow): number;
  /** One model call the source reported usage for (migration 003). */
  insertModelCall(sessionId: number, call: ModelCallUsage): void;
  insertToolCycle(row: NewToolCycleRow): void;
  insertExternalCompaction(row: NewExternalCompactionRow): void;
  /** The sessions table has no immutability trigger: totals are known only after the turns. */
  finishSession(sessionId: number, totals: SessionTotals): void;
}

/** Prepares the import's statements once; the returned functions run them. */
export function prepareSessionWrites(db: DB): SessionWrites {
  const insertSession = db.prepare(
    `INSERT INTO sessions (title, format, source_file, source_hash, created_at, parent_session_id, agent_id, tokenizer)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertTurn = db.prepare(
    `INSERT INTO turns (session_id, position, role, blocks, text, char_count, token_count, source_ids, timestamp, model, agent_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertCycle = db.prepare(
    `INSERT INTO tool_cycles (session_id, tool_use_id, tool_name, use_position, result_position, is_error) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertCompaction = db.prepare(
    `INSERT INTO external_compactions (session_id, trigger, pre_tokens, summary_text, summary_token_count, first_position, last_position, boundary_position, source_id, timestamp)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finishSession = db.prepare(
    `UPDATE sessions SET title = ?, started_at = ?, turn_count = ?, token_count = ?, tool_call_count = ?, metadata = ? WHERE id = ?`,
  );
  return {
    insertSession: (r) =>
      Number(insertSession.run(r.title, r.format, r.sourceFile, r.sourceHash, r.createdAt, r.parentSessionId, r.agentId, r.tokenizer).lastInsertRowid),
    insertTurn: (r) =>
      Number(insertTurn.run(r.sessionId, r.position, r.role, r.blocksJson, r.text, r.text.length, r.tokenCount, JSON.stringify(r.sourceIds), r.timestamp, r.model, r.agentId).lastInsertRowid),
    insertModelCall: prepareInsertModelCall(db),
    insertToolCycle: (r) => {
      insertCycle.run(r.sessionId, r.toolUseId, r.toolName, r.usePosition, r.resultPosition, r.isError ? 1 : 0);
    },
    insertExternalCompaction: (r) => {
      insertCompaction.run(r.sessionId, r.trigger, r.preTokens, r.summaryText, r.summaryTokenCount, r.firstPosition, r.lastPosition, r.boundaryPosition, r.sourceId, r.timestamp);
    },
    finishSession: (id, t) => {
      finishSession.run(t.title, t.startedAt, t.turnCount, t.tokenCount, t.toolCallCount, JSON.stringify(t.metadata), id);
    },
  };
}
