/** Data access for sessions: plain functions (db, args) => result with explicit row mappers. */
import { writeTransaction, type DB } from './db.js';
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

const SELECT_SESSION = `SELECT s.*, (SELECT COUNT(*) FROM external_compactions e WHERE e.session_id = s.id) AS external_compactions FROM sessions s`;

export function listSessions(db: DB): SessionSummary[] {
  const rows = db.prepare(`${SELECT_SESSION} ORDER BY s.id`).all() as SessionRow[];
  return rows.map(sessionFromRow);
}

export function getSession(db: DB, id: number): SessionSummary | null {
  const row = db.prepare(`${SELECT_SESSION} WHERE s.id = ?`).get(id) as SessionRow | undefined;
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
  const rows = db.prepare(`${SELECT_SESSION} WHERE s.parent_session_id = ? ORDER BY s.id`).all(parentId) as SessionRow[];
  return rows.map(sessionFromRow);
}

/**
 * Deletes a session, its child sessions, and everything derived from them. The one
 * explicit way turns leave the store: the session is registered in session_deletions
 * for the duration of the transaction so the immutability triggers let it through.
 */
export function deleteSession(db: DB, id: number): boolean {
  return writeTransaction(db, () => {
    const exists = db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id);
    if (!exists) return false;
    for (const child of db.prepare('SELECT id FROM sessions WHERE parent_session_id = ?').all(id) as { id: number }[]) {
      deleteSession(db, child.id);
    }
    db.prepare('INSERT OR IGNORE INTO session_deletions(session_id) VALUES (?)').run(id);
    const variantIds = (db.prepare('SELECT id FROM variants WHERE session_id = ?').all(id) as { id: number }[]).map((r) => r.id);
    for (const vid of variantIds) {
      db.prepare('DELETE FROM summary_sources WHERE summary_id IN (SELECT id FROM summaries WHERE variant_id = ?)').run(vid);
      // summary_facts (migration 006) references its summary: its rows go first.
      db.prepare('DELETE FROM summary_facts WHERE summary_id IN (SELECT id FROM summaries WHERE variant_id = ?)').run(vid);
      db.prepare('DELETE FROM summaries WHERE variant_id = ?').run(vid);
      db.prepare('DELETE FROM run_events WHERE run_id IN (SELECT id FROM runs WHERE variant_id = ?)').run(vid);
      db.prepare('DELETE FROM runs WHERE variant_id = ?').run(vid);
    }
    db.prepare('DELETE FROM variants WHERE session_id = ?').run(id);
    db.prepare('DELETE FROM model_calls WHERE session_id = ?').run(id);
    db.prepare('DELETE FROM external_compactions WHERE session_id = ?').run(id);
    db.prepare('DELETE FROM tool_cycles WHERE session_id = ?').run(id);
    db.prepare('DELETE FROM turns WHERE session_id = ?').run(id);
    db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
    db.prepare('DELETE FROM session_deletions WHERE session_id = ?').run(id);
    return true;
  });
}
