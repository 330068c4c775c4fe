/**
 * Migration 2: variants (strategy + parameters + summarizer + prompt version),
 * their runs and events, summaries with their edges, the summary cache, summary FTS.
 */
export const migration002 = {
  version: 2,
  name: 'compaction',
  sql: /* sql */ `
CREATE TABLE variants (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  strategy TEXT NOT NULL,
  params TEXT NOT NULL,
  summarizer TEXT NOT NULL,
  prompt_version TEXT NOT NULL,
  -- sha256 of the canonical (strategy, params, summarizer, prompt_version): one variant each.
  variant_key TEXT NOT NULL,
  -- strategy state: rolling {summary, pointer}, watermark {watermark}, two-line {...}
  state TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  UNIQUE (session_id, variant_key)
) STRICT;

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  variant_id INTEGER NOT NULL REFERENCES variants(id),
  started_at TEXT NOT NULL,
  ended_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'skipped', 'failed', 'cancelled')),
  params TEXT NOT NULL,
  stats TEXT NOT NULL DEFAULT '{}',
  error TEXT
) STRICT;
CREATE INDEX runs_variant ON runs(variant_id);

CREATE TABLE run_events (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX run_events_run ON run_events(run_id);

CREATE TABLE summaries (
  id INTEGER PRIMARY KEY,
  variant_id INTEGER NOT NULL REFERENCES variants(id),
  run_id INTEGER REFERENCES runs(id),
  -- leaf | condensed | rolling | watermark | digest | chunk
  kind TEXT NOT NULL,
  depth INTEGER NOT NULL,
  text TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  tier TEXT NOT NULL CHECK (tier IN ('normal', 'aggressive', 'fallback', 'truncation', 'digest')),
  model TEXT NOT NULL,
  prompt_version TEXT NOT NULL,
  cache_key TEXT,
  cache_hit INTEGER NOT NULL DEFAULT 0,
  -- folded into a parent (dag) or superseded (rolling, two-line upgrade): marked, never deleted.
  compacted INTEGER NOT NULL DEFAULT 0,
  first_position INTEGER NOT NULL,
  last_position INTEGER NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX summaries_variant ON summaries(variant_id, depth);

-- Edges: a leaf covers turns, a condensed summary covers child summaries.
CREATE TABLE summary_sources (
  summary_id INTEGER NOT NULL REFERENCES summaries(id),
  ord INTEGER NOT NULL,
  turn_id INTEGER REFERENCES turns(id),
  child_summary_id INTEGER REFERENCES summaries(id),
  CHECK ((turn_id IS NULL) <> (child_summary_id IS NULL)),
  PRIMARY KEY (summary_id, ord)
) STRICT;
CREATE INDEX summary_sources_child ON summary_sources(child_summary_id);

CREATE TABLE summary_cache (
  cache_key TEXT PRIMARY KEY,
  text TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  tier TEXT NOT NULL,
  model TEXT NOT NULL,
  created_at TEXT NOT NULL,
  -- monotonically increasing use counter for LRU eviction (no clock needed).
  last_used INTEGER NOT NULL
) STRICT;
CREATE INDEX summary_cache_lru ON summary_cache(last_used);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE VIRTUAL TABLE summaries_fts USING fts5(text, content='summaries', content_rowid='id', tokenize='unicode61');
CREATE TRIGGER summaries_fts_insert AFTER INSERT ON summaries BEGIN
  INSERT INTO summaries_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER summaries_fts_delete AFTER DELETE ON summaries BEGIN
  INSERT INTO summaries_fts(summaries_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
`,
};
