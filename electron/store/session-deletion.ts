/**
 * Deleting a session without stopping the world. Two steps:
 * 1. `markSessionForDeletion`: one quick transaction registers the session and its
 *    descendants in `session_deletions` (the immutability triggers of migrations 1 and 3
 *    then let their turns and model calls go) and frees the source hash, so the session
 *    leaves every listing at once (sessions.ts filters `session_deletions`) and its file can
 *    be imported again meanwhile.
 * 2. `deleteSessionBatch`, repeated: each call removes at most `limit` rows (summary edges,
 *    summaries, run events, timelines, runs, variants, model calls, external compactions,
 *    tool cycles, turns — the FTS rows go with their turns and summaries through the
 *    delete triggers) in its own short write transaction, so other writers (the window,
 *    the CLI, a pass) get the lock between batches; the last one deletes the session row
 *    and its mark.
 * A delete interrupted between batches (the app quit, the process was killed) is still
 * marked: `pendingDeletions` lists it and whoever opens the store next finishes it.
 */
import { writeTransaction, yieldWriteLock, type DB } from './db.js';
import { StudioError } from '../../shared/contract.js';
import { currentOwner, liveRunOfSessions, ownerAlive } from './run-owner.js';

/** Rows per batch at most: 1,000 turns with their FTS rows take 20–50 ms on this machine (FTS merges vary), so batches are also bounded in time. */
export const DELETE_BATCH_ROWS = 1_000;
/**
 * The time a batch may hold the write lock: `finishDeletions` sizes each batch from how long
 * the one before took per row, so another connection's write waits at most about this long
 * (plus the pause between two batches, `yieldWriteLock` in db.ts).
 */
export const DELETE_BATCH_MS = 20;
/** The smallest batch, however slow the rows are. */
const MIN_BATCH_ROWS = 50;

/**
 * Marks a session and its descendants for deletion. Returns their ids in the order they
 * must be deleted (children before parents), or null when the session does not exist or is
 * already being deleted.
 */
export function markSessionForDeletion(db: DB, id: number): number[] | null {
  return writeTransaction(db, () => {
    const visible = db.prepare('SELECT 1 FROM sessions WHERE id = ? AND id NOT IN (SELECT session_id FROM session_deletions)').get(id);
    if (!visible) return null;
    const ids = db
      .prepare(
        `WITH RECURSIVE tree(id, depth) AS (SELECT ?, 0 UNION ALL SELECT s.id, t.depth + 1 FROM sessions s JOIN tree t ON s.parent_session_id = t.id)
         SELECT id FROM tree ORDER BY depth DESC, id DESC`,
      )
      .pluck()
      .all(id) as number[];
    // A pass or a replay still writing into one of them (in any live process) would fail half-way on
    // its missing rows: the delete is refused instead, in the same transaction as the check.
    const live = liveRunOfSessions(db, ids);
    if (live) {
      const where = live.owner_pid === null ? '' : ` in process ${live.owner_pid} on ${live.owner_host}`;
      throw new StudioError('busy', `session ${live.sessionId} has a compaction running${where} (run ${live.id}); cancel it or wait for it to finish before deleting session ${id}`);
    }
    const mark = markStatement(db);
    // The unique index on source_hash would refuse a re-import of the same file while this one is going.
    const freeHash = db.prepare(`UPDATE sessions SET source_hash = 'deleting:' || id || ':' || source_hash WHERE id = ? AND source_hash NOT LIKE 'deleting:%'`);
    for (const sid of ids) {
      mark.run(sid);
      freeHash.run(sid);
    }
    return ids;
  });
}

/** A mark stamped with this process as its owner (migration 13). */
function markStatement(db: DB): { run(id: number): unknown } {
  const me = currentOwner();
  const stmt = db.prepare('INSERT OR IGNORE INTO session_deletions(session_id, owner_pid, owner_host, owner_start) VALUES (?, ?, ?, ?)');
  return { run: (id: number) => stmt.run(id, me.pid, me.host, me.start) };
}

/**
 * Sessions marked and not yet gone whose marking process is gone (a delete or a chunked
 * import it never finished), children before parents (they were inserted after them). A
 * mark whose owner still runs — a CLI import between two chunks, a delete under way in
 * another process — is left to it.
 */
export function pendingDeletions(db: DB): number[] {
  const rows = db
    .prepare('SELECT d.session_id, d.owner_pid, d.owner_host, d.owner_start FROM session_deletions d JOIN sessions s ON s.id = d.session_id ORDER BY d.session_id DESC')
    .all() as Array<{ session_id: number; owner_pid: number | null; owner_host: string | null; owner_start: string | null }>;
  return rows.filter((r) => !ownerAlive({ ...r, heartbeat_at: null })).map((r) => r.session_id);
}

/**
 * One statement per table, each deleting at most `limit` of the session's rows, in foreign-key
 * order. A table that hangs below a variant is also in `deleteVariantRows`
 * (electron/store/variants.ts), which deletes one variant at once: add it to both.
 */
const STEPS: readonly string[] = [
  `DELETE FROM sweep_points WHERE rowid IN (SELECT rowid FROM sweep_points WHERE session_id = :id LIMIT :limit)`,
  `DELETE FROM summary_sources WHERE rowid IN (SELECT ss.rowid FROM summary_sources ss JOIN summaries s ON s.id = ss.summary_id JOIN variants v ON v.id = s.variant_id WHERE v.session_id = :id LIMIT :limit)`,
  `DELETE FROM summary_facts WHERE rowid IN (SELECT f.rowid FROM summary_facts f JOIN summaries s ON s.id = f.summary_id JOIN variants v ON v.id = s.variant_id WHERE v.session_id = :id LIMIT :limit)`,
  `DELETE FROM summaries WHERE id IN (SELECT s.id FROM summaries s JOIN variants v ON v.id = s.variant_id WHERE v.session_id = :id LIMIT :limit)`,
  `DELETE FROM run_events WHERE rowid IN (SELECT e.rowid FROM run_events e JOIN runs r ON r.id = e.run_id JOIN variants v ON v.id = r.variant_id WHERE v.session_id = :id LIMIT :limit)`,
  `DELETE FROM replay_timelines WHERE run_id IN (SELECT r.id FROM runs r JOIN variants v ON v.id = r.variant_id WHERE v.session_id = :id LIMIT :limit)`,
  `DELETE FROM runs WHERE id IN (SELECT r.id FROM runs r JOIN variants v ON v.id = r.variant_id WHERE v.session_id = :id LIMIT :limit)`,
  `DELETE FROM probe_evaluations WHERE id IN (SELECT id FROM probe_evaluations WHERE session_id = :id LIMIT :limit)`,
  `DELETE FROM variants WHERE id IN (SELECT id FROM variants WHERE session_id = :id LIMIT :limit)`,
  `DELETE FROM model_calls WHERE rowid IN (SELECT rowid FROM model_calls WHERE session_id = :id LIMIT :limit)`,
  `DELETE FROM external_compactions WHERE rowid IN (SELECT rowid FROM external_compactions WHERE session_id = :id LIMIT :limit)`,
  `DELETE FROM tool_cycles WHERE rowid IN (SELECT rowid FROM tool_cycles WHERE session_id = :id LIMIT :limit)`,
  `DELETE FROM turns WHERE id IN (SELECT id FROM turns WHERE session_id = :id ORDER BY position LIMIT :limit)`,
];

/** How many rows deleting these sessions removes (the total of a delete's progress). */
export function rowsToDelete(db: DB, ids: readonly number[]): number {
  const count = db.prepare(
    `SELECT
       (SELECT COUNT(*) FROM turns WHERE session_id = :id) + (SELECT COUNT(*) FROM tool_cycles WHERE session_id = :id)
     + (SELECT COUNT(*) FROM model_calls WHERE session_id = :id) + (SELECT COUNT(*) FROM external_compactions WHERE session_id = :id)
     + (SELECT COUNT(*) FROM variants WHERE session_id = :id) + (SELECT COUNT(*) FROM sweep_points WHERE session_id = :id)
     + (SELECT COUNT(*) FROM runs r JOIN variants v ON v.id = r.variant_id WHERE v.session_id = :id)
     + (SELECT COUNT(*) FROM run_events e JOIN runs r ON r.id = e.run_id JOIN variants v ON v.id = r.variant_id WHERE v.session_id = :id)
     + (SELECT COUNT(*) FROM summaries s JOIN variants v ON v.id = s.variant_id WHERE v.session_id = :id)
     + (SELECT COUNT(*) FROM summary_sources ss JOIN summaries s ON s.id = ss.summary_id JOIN variants v ON v.id = s.variant_id WHERE v.session_id = :id)
     + (SELECT COUNT(*) FROM summary_facts f JOIN summaries s ON s.id = f.summary_id JOIN variants v ON v.id = s.variant_id WHERE v.session_id = :id)
     + 1`,
  );
  let total = 0;
  for (const id of ids) total += count.pluck().get({ id }) as number;
  return total;
}

/**
 * Deletes up to `limit` rows of a session marked for deletion, in one write transaction.
 * `finished` once the session row itself is gone (a session not marked is left alone).
 */
export function deleteSessionBatch(db: DB, id: number, limit: number = DELETE_BATCH_ROWS): { rows: number; finished: boolean } {
  return writeTransaction(db, () => {
    if (!db.prepare('SELECT 1 FROM session_deletions WHERE session_id = ?').get(id)) {
      return { rows: 0, finished: !db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id) };
    }
    let rows = 0;
    for (const sql of STEPS) {
      rows += db.prepare(sql).run({ id, limit: limit - rows }).changes;
      if (rows >= limit) return { rows, finished: false };
    }
    rows += db.prepare('DELETE FROM sessions WHERE id = ?').run(id).changes;
    db.prepare('DELETE FROM session_deletions WHERE session_id = ?').run(id);
    return { rows, finished: true };
  });
}

/**
 * Deletes marked sessions batch by batch: each of at most `limit` rows, sized to hold the lock
 * about DELETE_BATCH_MS (from the rate of the batch before), with the lock left free between
 * two batches (`yieldWriteLock`) so a waiting writer of another connection gets it.
 * `between` runs after every batch (progress; it may throw to stop: the rest stays marked and
 * is finished by the next caller).
 */
export function finishDeletions(db: DB, ids: readonly number[], between: (rowsSoFar: number) => void = () => undefined, limit = DELETE_BATCH_ROWS): number {
  let rows = 0;
  let size = Math.min(limit, 500);
  let first = true;
  for (const id of ids) {
    for (;;) {
      if (!first) yieldWriteLock();
      first = false;
      const started = performance.now();
      const batch = deleteSessionBatch(db, id, size);
      const ms = performance.now() - started;
      // A full batch tells the rate; a short one (the session's last) does not.
      if (batch.rows >= size) size = Math.min(limit, Math.max(MIN_BATCH_ROWS, Math.round((size * DELETE_BATCH_MS) / Math.max(ms, 1))));
      rows += batch.rows;
      between(rows);
      if (batch.finished) break;
    }
  }
  return rows;
}

/*
 * An import committed in chunks (electron/importers/import.ts) uses the same mark: its
 * sessions are registered in `session_deletions` before the first chunk commits, so they are
 * hidden from every listing, `getSession` and search until the last chunk, and an import that
 * dies half-way is a marked session that the next start finishes like an interrupted delete.
 * Unlike a delete, the mark keeps the source hash as it is: a second import of the same file
 * meanwhile finds it (`isHiddenSession`) instead of writing a duplicate.
 */

/** Hides sessions an import has begun writing (inside the import's open transaction). */
export function hideImportingSessions(db: DB, ids: readonly number[]): void {
  const mark = markStatement(db);
  for (const id of ids) mark.run(id);
}

/** The import's last step: its sessions appear, all at once (inside its last transaction). */
export function revealImportedSessions(db: DB, ids: readonly number[]): void {
  const unmark = db.prepare('DELETE FROM session_deletions WHERE session_id = ?');
  const exists = db.prepare('SELECT 1 FROM sessions WHERE id = ?');
  for (const id of ids) {
    // Removed meanwhile (another process finished "pending deletions"): the import must not claim it.
    if (!exists.get(id)) throw new Error(`session ${id} of this import was removed while it was being written`);
    unmark.run(id);
  }
}

/** True when the session exists but is marked: being deleted, or being imported. */
export function isHiddenSession(db: DB, id: number): boolean {
  return db.prepare('SELECT 1 FROM session_deletions WHERE session_id = ?').get(id) !== undefined;
}

/**
 * Undoes the committed chunks of a failed or cancelled import: frees the hashes (so the file
 * can be imported again at once) and deletes the sessions batch by batch. `ids` parents first,
 * as the import wrote them. If this is interrupted too, the marks stay and the next start finishes it.
 */
export function abandonImportedSessions(db: DB, ids: readonly number[]): void {
  const children = [...ids].reverse();
  writeTransaction(db, () => {
    const freeHash = db.prepare(`UPDATE sessions SET source_hash = 'deleting:' || id || ':' || source_hash WHERE id = ? AND source_hash NOT LIKE 'deleting:%' AND id IN (SELECT session_id FROM session_deletions)`);
    for (const id of children) freeHash.run(id);
  });
  finishDeletions(db, children);
}
