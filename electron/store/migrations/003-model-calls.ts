/**
 * Migration 3: model calls, what the source reported about each call that produced an
 * assistant turn (shared/usage/types.ts ModelCallUsage): token usage, model, time.
 * Adds a table only; no existing row is rewritten (sessions imported before this
 * migration simply have no model calls until they are imported again).
 * Immutable like turns: the importer writes the rows once, inside the import's
 * transaction; only deleteSession (registered in session_deletions) removes them.
 */
export const migration003 = {
  version: 3,
  name: 'model-calls',
  sql: /* sql */ `
CREATE TABLE model_calls (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  -- The assistant turn the call produced; the call saw turns [0, position).
  turn_id INTEGER NOT NULL REFERENCES turns(id),
  position INTEGER NOT NULL,
  message_id TEXT,
  model TEXT,
  timestamp TEXT,
  -- Figures as the source reported them; NULL when absent or malformed (never 0 for unknown).
  input_tokens INTEGER,
  cache_write_5m_tokens INTEGER,
  cache_write_1h_tokens INTEGER,
  cache_read_tokens INTEGER,
  output_tokens INTEGER,
  -- 1: known placeholder values (kept, never trusted); see shared/usage/placeholder.ts.
  placeholder INTEGER NOT NULL DEFAULT 0 CHECK (placeholder IN (0, 1))
) STRICT;
-- One call per assistant turn.
CREATE UNIQUE INDEX model_calls_session_position ON model_calls(session_id, position);

CREATE TRIGGER model_calls_immutable_update BEFORE UPDATE ON model_calls
BEGIN
  SELECT RAISE(ABORT, 'model calls are immutable: imported usage is never changed');
END;
CREATE TRIGGER model_calls_immutable_delete BEFORE DELETE ON model_calls
WHEN NOT EXISTS (SELECT 1 FROM session_deletions WHERE session_id = OLD.session_id)
BEGIN
  SELECT RAISE(ABORT, 'model calls are immutable: delete the whole session instead');
END;
`,
};
