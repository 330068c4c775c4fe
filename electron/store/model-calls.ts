/**
 * Data access for model calls (migration 003): what the source reported about each call
 * that produced an assistant turn. Written once by the importer, read by the usage view.
 */
import type Database from 'better-sqlite3';
import type { ModelCallUsage } from '../../shared/usage/types.js';
import type { DB } from './db.js';

interface ModelCallRow {
  session_id: number;
  turn_id: number;
  position: number;
  message_id: string | null;
  model: string | null;
  timestamp: string | null;
  input_tokens: number | null;
  cache_write_5m_tokens: number | null;
  cache_write_1h_tokens: number | null;
  cache_read_tokens: number | null;
  output_tokens: number | null;
  placeholder: number;
}

export function modelCallFromRow(r: ModelCallRow): ModelCallUsage {
  return {
    position: r.position,
    turnId: r.turn_id,
    messageId: r.message_id,
    model: r.model,
    timestamp: r.timestamp,
    inputTokens: r.input_tokens,
    cacheWrite5mTokens: r.cache_write_5m_tokens,
    cacheWrite1hTokens: r.cache_write_1h_tokens,
    cacheReadTokens: r.cache_read_tokens,
    outputTokens: r.output_tokens,
    placeholder: r.placeholder === 1,
  };
}

/** The session's model calls in position order. */
export function listModelCalls(db: DB, sessionId: number): ModelCallUsage[] {
  const rows = db.prepare('SELECT * FROM model_calls WHERE session_id = ? ORDER BY position').all(sessionId) as ModelCallRow[];
  return rows.map(modelCallFromRow);
}

/** The importer's insert, prepared once per import (electron/importers/writer.ts). */
export function prepareInsertModelCall(db: DB): (sessionId: number, call: ModelCallUsage) => void {
  const stmt: Database.Statement = db.prepare(
    `INSERT INTO model_calls (session_id, turn_id, position, message_id, model, timestamp, input_tokens, cache_write_5m_tokens, cache_write_1h_tokens, cache_read_tokens, output_tokens, placeholder)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (sessionId, c) => {
    stmt.run(
      sessionId,
      c.turnId,
      c.position,
      c.messageId,
      c.model,
      c.timestamp,
      c.inputTokens,
      c.cacheWrite5mTokens,
      c.cacheWrite1hTokens,
      c.cacheReadTokens,
      c.outputTokens,
      c.placeholder ? 1 : 0,
    );
  };
}
