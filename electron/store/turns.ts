/** Data access for turns (read side; the importer writes them once). */
import type { DB } from './db.js';
import type { ContentBlock, Role, Turn, TurnMeta } from '../../shared/model/turn.js';
import type { ExternalCompactionInfo, SearchHit, SummarySearchHit } from '../../shared/contract.js';
import type { StrategyName, SummaryKind } from '../../shared/strategies/types.js';

export interface TurnRow {
  id: number;
  session_id: number;
  position: number;
  role: Role;
  blocks: string;
  text: string;
  char_count: number;
  token_count: number;
  source_ids: string;
  timestamp: string | null;
  model: string | null;
  agent_id: string | null;
}

export function turnFromRow(row: TurnRow): Turn {
  return {
    id: row.id,
    sessionId: row.session_id,
    position: row.position,
    role: row.role,
    blocks: JSON.parse(row.blocks) as ContentBlock[],
    charCount: row.char_count,
    tokenCount: row.token_count,
    timestamp: row.timestamp,
    model: row.model,
    agentId: row.agent_id,
    sourceIds: JSON.parse(row.source_ids) as string[],
  };
}

export function listTurns(db: DB, sessionId: number, range?: { from: number; to: number }): Turn[] {
  const rows = range
    ? (db.prepare('SELECT * FROM turns WHERE session_id = ? AND position >= ? AND position < ? ORDER BY position').all(sessionId, range.from, range.to) as TurnRow[])
    : (db.prepare('SELECT * FROM turns WHERE session_id = ? ORDER BY position').all(sessionId) as TurnRow[]);
  return rows.map(turnFromRow);
}

/**
 * The planners' view of a session, without block JSON parsing: counts from the
 * turns table and cycleStart from the tool_cycles table the importer filled.
 */
export function listTurnMetas(db: DB, sessionId: number): TurnMeta[] {
  const rows = db
    .prepare('SELECT id, position, role, char_count, token_count FROM turns WHERE session_id = ? ORDER BY position')
    .all(sessionId) as Array<{ id: number; position: number; role: Role; char_count: number; token_count: number }>;
  const metas: TurnMeta[] = rows.map((r) => ({ id: r.id, position: r.position, role: r.role, charCount: r.char_count, tokenCount: r.token_count, cycleStart: r.position }));
  const cycles = db
    .prepare('SELECT result_position, MIN(use_position) AS use_position FROM tool_cycles WHERE session_id = ? GROUP BY result_position')
    .all(sessionId) as Array<{ result_position: number; use_position: number }>;
  for (const c of cycles) {
    const m = metas[c.result_position];
    if (m && m.position === c.result_position && c.use_position < m.cycleStart) m.cycleStart = c.use_position;
  }
  return metas;
}

export interface ToolCycle {
  toolUseId: string;
  toolName: string;
  usePosition: number;
  resultPosition: number;
  isError: boolean;
}

export function listToolCycles(db: DB, sessionId: number): ToolCycle[] {
  const rows = db
    .prepare('SELECT tool_use_id, tool_name, use_position, result_position, is_error FROM tool_cycles WHERE session_id = ? ORDER BY use_position, result_position')
    .all(sessionId) as Array<{ tool_use_id: string; tool_name: string; use_position: number; result_position: number; is_error: number }>;
  return rows.map((r) => ({ toolUseId: r.tool_use_id, toolName: r.tool_name, usePosition: r.use_position, resultPosition: r.result_position, isError: r.is_error === 1 }));
}

/** A stored external compaction: the contract's ExternalCompactionInfo plus its session and source record. */
export interface ExternalCompaction extends ExternalCompactionInfo {
  sessionId: number;
  sourceId: string | null;
  timestamp: string | null;
}

export function listExternalCompactions(db: DB, sessionId: number): ExternalCompaction[] {
  const rows = db.prepare('SELECT * FROM external_compactions WHERE session_id = ? ORDER BY boundary_position').all(sessionId) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    id: r.id as number,
    sessionId: r.session_id as number,
    trigger: r.trigger as string,
    preTokens: r.pre_tokens as number | null,
    summaryText: r.summary_text as string,
    summaryTokenCount: r.summary_token_count as number,
    firstPosition: r.first_position as number,
    lastPosition: r.last_position as number,
    boundaryPosition: r.boundary_position as number,
    sourceId: r.source_id as string | null,
    timestamp: r.timestamp as string | null,
  }));
}

/** A user's words as an FTS5 query: each word a quoted phrase (all must occur), so user input is never FTS syntax. Null when there is no word. */
function ftsMatch(query: string): string | null {
  // FTS5 ends a string at a NUL ("unterminated string"): a NUL separates words like a space.
  const words = query.split(/[\s\0]+/).filter((w) => w.length > 0);
  return words.length === 0 ? null : words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ');
}

/** Full-text search over turn text (FTS5). */
export function searchTurns(db: DB, query: string, limit = 50): SearchHit[] {
  const match = ftsMatch(query);
  if (match === null) return [];
  const rows = db
    .prepare(
      `SELECT t.session_id, t.id, t.position, t.role, snippet(turns_fts, 0, '[', ']', '…', 12) AS snippet
       FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid
       WHERE turns_fts MATCH ? AND t.session_id NOT IN (SELECT session_id FROM session_deletions) ORDER BY rank LIMIT ?`,
    )
    .all(match, limit) as Array<{ session_id: number; id: number; position: number; role: Role; snippet: string }>;
  return rows.map((r) => ({ sessionId: r.session_id, turnId: r.id, position: r.position, role: r.role, snippet: r.snippet }));
}

/**
 * Full-text search over summary text (summaries_fts, migration 002): every variant's pass
 * and replay summaries, with the variant (id, name, strategy), the summary's kind, depth,
 * covered turns and the replay run that made it ("did `dialyzer` survive?").
 */
export function searchSummaries(db: DB, query: string, limit = 50): SummarySearchHit[] {
  const match = ftsMatch(query);
  if (match === null) return [];
  const rows = db
    .prepare(
      `SELECT v.session_id, s.id, s.variant_id, v.name, v.strategy, v.params, s.kind, s.depth, s.first_position, s.last_position, s.replay_run_id, s.call_index, s.compacted,
              snippet(summaries_fts, 0, '[', ']', '…', 12) AS snippet
       FROM summaries_fts JOIN summaries s ON s.id = summaries_fts.rowid JOIN variants v ON v.id = s.variant_id
       WHERE summaries_fts MATCH ? ORDER BY rank, s.id LIMIT ?`,
    )
    .all(match, limit) as Array<{ session_id: number; id: number; variant_id: number; name: string | null; strategy: StrategyName; params: string; kind: SummaryKind; depth: number; first_position: number; last_position: number; replay_run_id: number | null; call_index: number | null; compacted: number; snippet: string }>;
  return rows.map((r) => ({
    sessionId: r.session_id,
    summaryId: r.id,
    variantId: r.variant_id,
    variantName: r.name,
    strategy: r.strategy,
    params: JSON.parse(r.params) as SummarySearchHit['params'],
    kind: r.kind,
    depth: r.depth,
    firstPosition: r.first_position,
    lastPosition: r.last_position,
    replayRunId: r.replay_run_id,
    callIndex: r.call_index,
    compacted: r.compacted !== 0,
    snippet: r.snippet,
  }));
}
