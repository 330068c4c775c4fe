/**
 * Migration 1: sessions, immutable turns, tool cycles, external compactions, turn FTS.
 * Append-only: never edit a shipped migration, add the next number instead.
 */
export const migration001 = {
  version: 1,
  name: 'foundation',
  sql: /* sql */ `
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  format TEXT NOT NULL,
  source_file TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  started_at TEXT,
  parent_session_id INTEGER REFERENCES sessions(id),
  agent_id TEXT,
  tokenizer TEXT NOT NULL,
  turn_count INTEGER NOT NULL DEFAULT 0,
  token_count INTEGER NOT NULL DEFAULT 0,
  tool_call_count INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}'
) STRICT;
-- Re-importing the same content is detected by hash (top-level sessions; a child
-- session from a sidechain shares its parent's file).
CREATE UNIQUE INDEX sessions_source_hash ON sessions(source_hash) WHERE parent_session_id IS NULL;
CREATE INDEX sessions_parent ON sessions(parent_session_id);

CREATE TABLE turns (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  position INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  blocks TEXT NOT NULL,
  text TEXT NOT NULL,
  char_count INTEGER NOT NULL,
  token_count INTEGER NOT NULL,
  source_ids TEXT NOT NULL DEFAULT '[]',
  timestamp TEXT,
  model TEXT,
  agent_id TEXT,
  UNIQUE (session_id, position)
) STRICT;

CREATE TABLE tool_cycles (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  tool_use_id TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  use_position INTEGER NOT NULL,
  result_position INTEGER NOT NULL,
  is_error INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX tool_cycles_session ON tool_cycles(session_id, use_position);

-- A compaction the source tool itself recorded (Claude Code compact_boundary +
-- isCompactSummary). first/last_position: the span of turns it summarized.
CREATE TABLE external_compactions (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  trigger TEXT NOT NULL,
  pre_tokens INTEGER,
  summary_text TEXT NOT NULL,
  summary_token_count INTEGER NOT NULL DEFAULT 0,
  first_position INTEGER NOT NULL,
  last_position INTEGER NOT NULL,
  -- position of the first turn after the boundary (= turn_count when none).
  boundary_position INTEGER NOT NULL,
  source_id TEXT,
  timestamp TEXT
) STRICT;
CREATE INDEX external_compactions_session ON external_compactions(session_id);

-- Deleting a session is the one explicit way turns may go: the delete function
-- registers the session here inside its transaction, the triggers check it.
CREATE TABLE session_deletions (session_id INTEGER PRIMARY KEY) STRICT;

CREATE TRIGGER turns_immutable_update BEFORE UPDATE ON turns
BEGIN
  SELECT RAISE(ABORT, 'turns are immutable: imported turns are never changed');
END;
CREATE TRIGGER turns_immutable_delete BEFORE DELETE ON turns
WHEN NOT EXISTS (SELECT 1 FROM session_deletions WHERE session_id = OLD.session_id)
BEGIN
  SELECT RAISE(ABORT, 'turns are immutable: delete the whole session instead');
END;
CREATE TRIGGER tool_cycles_immutable_update BEFORE UPDATE ON tool_cycles
BEGIN
  SELECT RAISE(ABORT, 'tool cycles are immutable');
END;
CREATE TRIGGER tool_cycles_immutable_delete BEFORE DELETE ON tool_cycles
WHEN NOT EXISTS (SELECT 1 FROM session_deletions WHERE session_id = OLD.session_id)
BEGIN
  SELECT RAISE(ABORT, 'tool cycles are immutable: delete the whole session instead');
END;

CREATE VIRTUAL TABLE turns_fts USING fts5(text, content='turns', content_rowid='id', tokenize='unicode61');
CREATE TRIGGER turns_fts_insert AFTER INSERT ON turns BEGIN
  INSERT INTO turns_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER turns_fts_delete AFTER DELETE ON turns BEGIN
  INSERT INTO turns_fts(turns_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
`,
};
