/** Data access for sessions: plain functions (db, args) => result with explicit row mappers. */
import type { DB } from './db.js';
import { finishDeletions, markSessionForDeletion } from './session-deletion.js';
import type { SessionInfo } from '../../shared/contract.js';

export interface SessionRow {
  id: number;
  title: string;
  format: string;
  source_file: string;
  source_hash: string;
  created_at: string;
  started_at: string | null;
  parent_session_id: number | null;
  agent_id: string | null;
  tokenizer: string;
  turn_count: number;
  token_count: number;
  tool_call_count: number;
  metadata: string;
}

/**
 * A stored session: the contract's SessionInfo (what the window sees) plus what stays in
 * main, the source hash and the importer's raw metadata.
 */
export interface SessionSummary extends SessionInfo {
  sourceHash: string;
  metadata: Record<string, unknown>;
}

export function sessionFromRow(row: SessionRow & { external_compactions?: number }): SessionSummary {
  return {
    id: row.id,
    title: row.title,
    format: row.format,
    sourceFile: row.source_file,
    sourceHash: row.source_hash,
    createdAt: row.created_at,
    startedAt: row.started_at,
    parentSessionId: row.parent_session_id,
    agentId: row.agent_id,
    tokenizer: row.tokenizer,
    turns: row.turn_count,
    tokens: row.token_count,
    toolCalls: row.tool_call_count,
    externalCompactions: row.external_compactions ?? 0,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

/** The contract's session shape (no source hash, no raw metadata): one mapper for the CLI, the import report and the window. */
export function sessionInfoOf(s: SessionSummary): SessionInfo {
  return {
    id: s.id,
    title: s.title,
    format: s.format,
    sourceFile: s.sourceFile,
    createdAt: s.createdAt,
    startedAt: s.startedAt,
    parentSessionId: s.parentSessionId,
    agentId: s.agentId,
    tokenizer: s.tokenizer,
    turns: s.turns,
    tokens: s.tokens,
    toolCalls: s.toolCalls,
    externalCompactions: s.externalCompactions,
  };
}

/** Sessions being deleted (session_deletions, electron/store/session-deletion.ts) are gone for every reader at once. */
const SELECT_SESSION = `SELECT s.*, (SELECT COUNT(*) FROM external_compactions e WHERE e.session_id = s.id) AS external_compactions FROM sessions s WHERE s.id NOT IN (SELECT session_id FROM session_deletions)`;

export function listSessions(db: DB): SessionSummary[] {
  const rows = db.prepare(`${SELECT_SESSION} ORDER BY s.id`).all() as SessionRow[];
  return rows.map(sessionFromRow);
}

export function getSession(db: DB, id: number): SessionSummary | null {
  const row = db.prepare(`${SELECT_SESSION} AND s.id = ?`).get(id) as SessionRow | undefined;
  return row ? sessionFromRow(row) : null;
}

/**
 * Any session holding exactly these source bytes (a top-level session first, else a child
 * imported from its own file): how an import recognizes a duplicate.
 */
export function findSessionByHash(db: DB, hash: string): number | null {
  const row = db.prepare('SELECT id FROM sessions WHERE source_hash = ? ORDER BY parent_session_id IS NOT NULL, id LIMIT 1').get(hash) as { id: number } | undefined;
  return row?.id ?? null;
}

export function childSessions(db: DB, parentId: number): SessionSummary[] {
  const rows = db.prepare(`${SELECT_SESSION} AND s.parent_session_id = ? ORDER BY s.id`).all(parentId) as SessionRow[];
  return rows.map(sessionFromRow);
}

/**
 * Deletes a session, its child sessions, and everything derived from them, in batches
 * (electron/store/session-deletion.ts): the one explicit way turns leave the store. The
 * CLI's synchronous path; the app runs the batches in its worker.
 */
export function deleteSession(db: DB, id: number): boolean {
  const ids = markSessionForDeletion(db, id);
  if (!ids) return false;
  finishDeletions(db, ids);
  return true;
}
