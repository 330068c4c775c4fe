/**
 * `merge A.db B.db … --db OUT`: the union of databases that started from the same sessions
 * (the shards of a sweep, electron/cli/commands/sweep.ts), so work done on several machines
 * lands in one store. Safe because turns are immutable and every derived row is keyed by
 * what it is, not by where it was made:
 *
 * - a session is the same session when its content hash is (top level: `source_hash`;
 *   a subagent: its parent, hash and agent id); its turns are then the same turns (matched
 *   by position) and nothing of it is copied again;
 * - a variant is the same variant when (session, variant_key) is; a run is the same run
 *   when (variant, kind, started_at, params) is; a summary with no run by (variant, kind,
 *   span, created_at); a cache entry by its cache key; a sweep by its `sweep_key` (what it
 *   is, not when it was made: the shards of one sweep become one sweep) and a sweep's pair by
 *   (sweep, pair_index);
 * - every other row belongs to its parents: it is copied when one of its parents was
 *   copied (a new run brings its events, summaries, their edges, its timeline, and whatever
 *   later migrations hang below them), with every foreign key remapped;
 * - ids inside the derived JSON columns listed in JSON_ID_COLUMNS (`summaryIds`,
 *   `…SummaryId`, `runId`, `variantId`, `sessionId`) are remapped the same way; imported
 *   content (a turn's blocks) is never rewritten, whatever keys a tool input has;
 * - `settings` and `session_deletions` are local to a machine and never merged.
 * Merging the same file twice adds nothing the second time. A table this file does not
 * know and that hangs below no parent fails the merge before anything is written.
 * The whole merge of one source is one transaction.
 */
import { openDatabase, schemaVersion, writeTransaction, type DB } from './db.js';

/** Tables whose rows describe this machine, not the research. */
const LOCAL_TABLES = new Set(['settings', 'session_deletions']);

type Row = Record<string, unknown>;
type Identity = (row: Row) => { sql: string; args: unknown[] } | null;

/** Dedupe keys: the row in OUT that is the same thing (columns already remapped). */
const IDENTITY: Record<string, Identity> = {
  sessions: (r) =>
    r.parent_session_id === null
      ? { sql: 'SELECT id FROM sessions WHERE source_hash = ? AND parent_session_id IS NULL', args: [r.source_hash] }
      : { sql: "SELECT id FROM sessions WHERE parent_session_id = ? AND source_hash = ? AND coalesce(agent_id, '') = coalesce(?, '')", args: [r.parent_session_id, r.source_hash, r.agent_id] },
  turns: (r) => ({ sql: 'SELECT id FROM turns WHERE session_id = ? AND position = ?', args: [r.session_id, r.position] }),
  variants: (r) => ({ sql: 'SELECT id FROM variants WHERE session_id = ? AND variant_key = ?', args: [r.session_id, r.variant_key] }),
  runs: (r) => ({ sql: 'SELECT id FROM runs WHERE variant_id = ? AND kind = ? AND started_at = ? AND params = ?', args: [r.variant_id, r.kind, r.started_at, r.params] }),
  summaries: (r) =>
    r.run_id === null && r.replay_run_id === null
      ? { sql: 'SELECT id FROM summaries WHERE variant_id = ? AND kind = ? AND first_position = ? AND last_position = ? AND created_at = ? AND run_id IS NULL', args: [r.variant_id, r.kind, r.first_position, r.last_position, r.created_at] }
      : null,
  // A sweep is the same sweep when its definition is (sweep_key: strategy, grid, fixed params,
  // summarizer, kind, sessions by content hash), so the shards of one sweep merge into one.
  sweeps: (r) => ({ sql: 'SELECT id FROM sweeps WHERE sweep_key = ?', args: [r.sweep_key] }),
  // A pair of a sweep by its place in the sweep's order: each shard brings its own pairs.
  sweep_points: (r) => ({ sql: 'SELECT id FROM sweep_points WHERE sweep_id = ? AND pair_index = ?', args: [r.sweep_id, r.pair_index] }),
};

/**
 * The derived columns that hold ids inside JSON: a variant's state (rolling's and
 * watermark's current summary), a run's stats and events (a firing's summaries), a replay's
 * timeline. A migration that stores ids in JSON adds its column here.
 */
const JSON_ID_COLUMNS: Record<string, readonly string[]> = {
  variants: ['state'],
  runs: ['stats'],
  run_events: ['data'],
  replay_timelines: ['timeline'],
  sweeps: ['sessions'],
};

/** Tables with no parent whose rows are keyed by a natural primary key: INSERT OR IGNORE. */
const KEYED_TABLES = new Set(['summary_cache']);

interface ForeignKey {
  column: string;
  parent: string;
}

interface TableInfo {
  name: string;
  columns: string[];
  /** The INTEGER PRIMARY KEY column (a rowid alias) remapped on copy, if any. */
  idColumn: string | null;
  foreignKeys: ForeignKey[];
}

export interface MergeCounts {
  added: number;
  existing: number;
}

export interface MergeSourceReport {
  file: string;
  /** Per table: rows copied, and rows found already present (deduplicated). */
  tables: Record<string, MergeCounts>;
}

/** Tables of the store in an order where every parent comes before its children. */
function tablesOf(db: DB): TableInfo[] {
  const all = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string; sql: string }>;
  const virtual = all.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql)).map((t) => t.name);
  // FTS tables and their shadow tables are rebuilt by the triggers on insert.
  const real = all.filter((t) => !virtual.some((v) => t.name === v || t.name.startsWith(`${v}_`)) && !LOCAL_TABLES.has(t.name));
  const infos = new Map<string, TableInfo>();
  for (const { name } of real) {
    const cols = db.prepare(`PRAGMA table_info(${JSON.stringify(name)})`).all() as Array<{ name: string; type: string; pk: number }>;
    const pks = cols.filter((c) => c.pk > 0);
    const fks = (db.prepare(`PRAGMA foreign_key_list(${JSON.stringify(name)})`).all() as Array<{ table: string; from: string }>).map((f) => ({ column: f.from, parent: f.table }));
    const idColumn = pks.length === 1 && pks[0].type.toUpperCase() === 'INTEGER' && !fks.some((f) => f.column === pks[0].name) ? pks[0].name : null;
    infos.set(name, { name, columns: cols.map((c) => c.name), idColumn, foreignKeys: fks });
  }
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  while (ordered.length < infos.size) {
    const ready = [...infos.values()].filter((t) => !placed.has(t.name) && t.foreignKeys.every((f) => f.parent === t.name || placed.has(f.parent) || !infos.has(f.parent)));
    if (ready.length === 0) throw new Error(`merge: a foreign-key cycle between ${[...infos.keys()].filter((n) => !placed.has(n)).join(', ')}`);
    for (const t of ready) {
      ordered.push(t);
      placed.add(t.name);
    }
  }
  return ordered;
}

const ID_KEYS: Array<{ re: RegExp; table: string }> = [
  { re: /^summaryIds?$|SummaryIds?$/, table: 'summaries' },
  { re: /^runIds?$/, table: 'runs' },
  { re: /^variantIds?$/, table: 'variants' },
  { re: /^sessionIds?$/, table: 'sessions' },
];

/** A copy of a JSON value with ids under the known keys remapped; `changed` says whether any was. */
function remapJson(value: unknown, maps: Map<string, Map<number, number>>, state: { changed: boolean }, table: string | null = null): unknown {
  if (table !== null) {
    const map = maps.get(table);
    if (typeof value === 'number' && map?.has(value)) {
      state.changed = true;
      return map.get(value);
    }
    if (Array.isArray(value)) return value.map((v) => remapJson(v, maps, state, table));
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => remapJson(v, maps, state));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = ID_KEYS.find((x) => x.re.test(k));
      out[k] = key ? remapJson(v, maps, state, key.table) : remapJson(v, maps, state);
    }
    return out;
  }
  return value;
}

/** Merges one database file into `out` (both at the same schema version after opening). */
export function mergeDatabase(out: DB, file: string, opts: { nativeBinding?: string } = {}): MergeSourceReport {
  const src = openDatabase(file, { nativeBinding: opts.nativeBinding });
  try {
    if (schemaVersion(src) !== schemaVersion(out)) throw new Error(`merge: ${file} is at schema version ${schemaVersion(src)}, the output at ${schemaVersion(out)}`);
    const tables = tablesOf(out);
    for (const t of tables) {
      if (!IDENTITY[t.name] && !KEYED_TABLES.has(t.name) && t.foreignKeys.length === 0) throw new Error(`merge: table "${t.name}" has no parent and no merge rule (electron/store/merge.ts)`);
    }
    const report: MergeSourceReport = { file, tables: {} };
    writeTransaction(out, () => {
      /** old id -> new id, per table (every row of the source that exists in OUT). */
      const maps = new Map<string, Map<number, number>>();
      /** old ids of rows copied by this merge, per table. */
      const added = new Map<string, Set<number>>();
      const jsonRows: Array<{ table: string; idColumn: string; id: number; column: string; text: string }> = [];
      for (const t of tables) {
        const map = new Map<number, number>();
        const fresh = new Set<number>();
        maps.set(t.name, map);
        added.set(t.name, fresh);
        const counts: MergeCounts = { added: 0, existing: 0 };
        report.tables[t.name] = counts;
        const columns = t.columns.filter((c) => c !== t.idColumn);
        const insert = out.prepare(`INSERT ${KEYED_TABLES.has(t.name) ? 'OR IGNORE ' : ''}INTO ${JSON.stringify(t.name)} (${columns.map((c) => JSON.stringify(c)).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
        const selfFk = t.foreignKeys.find((f) => f.parent === t.name);
        // Parents before children within a self-referencing table (a session's subagents).
        const rows = src.prepare(`SELECT * FROM ${JSON.stringify(t.name)} ORDER BY ${selfFk ? `${JSON.stringify(selfFk.column)} IS NOT NULL, ` : ''}rowid`).all() as Row[];
        let pending = rows;
        while (pending.length > 0) {
          const later: Row[] = [];
          for (const row of pending) {
            const mapped: Row = { ...row };
            let parentNew = false;
            let unresolved = false;
            let waitsForSelf = false;
            for (const fk of t.foreignKeys) {
              const v = row[fk.column];
              if (v === null || v === undefined) continue;
              const to = maps.get(fk.parent)?.get(v as number);
              if (to === undefined) {
                if (fk.parent === t.name) waitsForSelf = true;
                else unresolved = true;
                continue;
              }
              mapped[fk.column] = to;
              if (added.get(fk.parent)?.has(v as number)) parentNew = true;
            }
            if (waitsForSelf && !unresolved) {
              later.push(row);
              continue;
            }
            // A parent that was not merged (a local table's row): the row stays behind.
            if (unresolved) continue;
            const identity = IDENTITY[t.name]?.(mapped) ?? null;
            if (identity) {
              const hit = out.prepare(identity.sql).get(...identity.args) as { id: number } | undefined;
              if (hit) {
                if (t.idColumn) map.set(row[t.idColumn] as number, hit.id);
                counts.existing++;
                continue;
              }
            } else if (!KEYED_TABLES.has(t.name) && !parentNew) {
              // Belongs to parents that were already here: it is here too.
              counts.existing++;
              continue;
            }
            const info = insert.run(...columns.map((c) => mapped[c] as never));
            if (info.changes === 0) {
              counts.existing++;
              continue;
            }
            counts.added++;
            if (t.idColumn) {
              const oldId = row[t.idColumn] as number;
              map.set(oldId, Number(info.lastInsertRowid));
              fresh.add(oldId);
            }
            for (const c of JSON_ID_COLUMNS[t.name] ?? []) {
              const v = mapped[c];
              if (typeof v === 'string') jsonRows.push({ table: t.name, idColumn: t.idColumn ?? 'rowid', id: Number(info.lastInsertRowid), column: c, text: v });
            }
          }
          if (later.length === pending.length) throw new Error(`merge: rows of ${t.name} refer to parents that are not in ${file}`);
          pending = later;
        }
      }
      // Ids inside JSON columns, now that every table's map is complete.
      for (const j of jsonRows) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(j.text);
        } catch {
          continue;
        }
        const state = { changed: false };
        const next = remapJson(parsed, maps, state);
        if (state.changed) out.prepare(`UPDATE ${JSON.stringify(j.table)} SET ${JSON.stringify(j.column)} = ? WHERE ${JSON.stringify(j.idColumn)} = ?`).run(JSON.stringify(next), j.id);
      }
    });
    return report;
  } finally {
    src.close();
  }
}
