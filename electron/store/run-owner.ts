/**
 * Who runs a run, and whether it still can (killed processes, two processes on one
 * database). One place for the rule:
 * - a run records its owner (pid, host, process start identity) when it starts and
 *   refreshes `heartbeat_at` every HEARTBEAT_MS while it works;
 * - an owner on this host is alive while its pid exists with the same start identity (a
 *   reused pid is another process); an owner on another host (a database on a shared
 *   disk) is alive while its heartbeat is fresher than FOREIGN_HOST_STALE_MS;
 * - `reapDeadRuns` marks 'running' runs whose owner is gone as failed with an
 *   "interrupted: …" error; it runs whenever a process opens the database (openDatabase)
 *   and periodically in the app, which tells the window. A live run is never touched;
 * - one compaction pass per session across processes: `claimPassRun` refuses (code
 *   'busy') while another live process has a pass of the same session running.
 * Runs from before migration 5 have no owner: if still 'running', they are dead.
 */
import fs from 'node:fs';
import os from 'node:os';
import { StudioError } from '../../shared/contract.js';
import { writeTransaction, type DB } from './db.js';

/** How often a working run refreshes its heartbeat. */
export const HEARTBEAT_MS = 5_000;
/** A run owned on another host is dead once its heartbeat is this old. */
export const FOREIGN_HOST_STALE_MS = 60_000;

export interface RunOwner {
  pid: number;
  host: string;
  /** The process's start identity: Linux /proc/<pid>/stat starttime, else the start time in ms. */
  start: string;
}

/** Linux: the start time (clock ticks since boot) of a process, null where /proc is absent. */
function procStart(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 overall
  } catch {
    return null;
  }
}

let self: RunOwner | null = null;
export function currentOwner(): RunOwner {
  self ??= { pid: process.pid, host: os.hostname(), start: procStart(process.pid) ?? String(Math.round(Date.now() - process.uptime() * 1000)) };
  return self;
}

interface OwnerRow {
  owner_pid: number | null;
  owner_host: string | null;
  owner_start: string | null;
  heartbeat_at: string | null;
}

/** Whether a run's owner can still be running it (see the file comment). */
export function ownerAlive(row: OwnerRow, nowMs: number = Date.now()): boolean {
  if (row.owner_pid === null || row.owner_host === null) return false;
  const me = currentOwner();
  if (row.owner_host !== me.host) return row.heartbeat_at !== null && nowMs - Date.parse(row.heartbeat_at) < FOREIGN_HOST_STALE_MS;
  if (row.owner_pid === me.pid) return row.owner_start === me.start;
  try {
    process.kill(row.owner_pid, 0);
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = procStart(row.owner_pid);
  return start === null || /^\d+$/.test(row.owner_start ?? '') === false || start === row.owner_start;
}

/** Records this process as the run's owner, with a first heartbeat. */
export function recordOwner(db: DB, runId: number): void {
  const me = currentOwner();
  db.prepare('UPDATE runs SET owner_pid = ?, owner_host = ?, owner_start = ?, heartbeat_at = ? WHERE id = ?').run(me.pid, me.host, me.start, new Date().toISOString(), runId);
}

/**
 * Refreshes the run's heartbeat every HEARTBEAT_MS until the returned stop is called (the
 * timer does not keep the process alive). A heartbeat that cannot be written (the database
 * busy for longer than its timeout) is skipped: the next one retries.
 */
export function startHeartbeat(db: DB, runId: number): () => void {
  const stmt = db.prepare("UPDATE runs SET heartbeat_at = ? WHERE id = ? AND status = 'running'");
  const timer = setInterval(() => {
    try {
      stmt.run(new Date().toISOString(), runId);
    } catch {
      // busy or closed: the next beat retries; a closed database ends with the run.
    }
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

export interface ReapedRun {
  runId: number;
  variantId: number;
  error: string;
}

/** Marks 'running' runs whose owner is gone as failed ("interrupted: …"); returns them. */
export function reapDeadRuns(db: DB, nowMs: number = Date.now()): ReapedRun[] {
  const rows = db.prepare("SELECT id, variant_id, owner_pid, owner_host, owner_start, heartbeat_at FROM runs WHERE status = 'running'").all() as Array<OwnerRow & { id: number; variant_id: number }>;
  const dead = rows.filter((r) => !ownerAlive(r, nowMs));
  if (dead.length === 0) return [];
  const at = new Date(nowMs).toISOString();
  const update = db.prepare("UPDATE runs SET status = 'failed', ended_at = ?, error = ? WHERE id = ? AND status = 'running'");
  const out: ReapedRun[] = [];
  writeTransaction(db, () => {
    for (const r of dead) {
      const error = r.owner_pid === null ? 'interrupted: the process stopped during the run' : `interrupted: process ${r.owner_pid} on ${r.owner_host} stopped during the run`;
      if (update.run(at, error, r.id).changes > 0) out.push({ runId: r.id, variantId: r.variant_id, error });
    }
  });
  return out;
}

/**
 * A running run (a pass or a replay) of one of these sessions whose process is alive, this
 * process's own included; null when there is none. A delete refuses while there is one.
 */
export function liveRunOfSessions(db: DB, sessionIds: readonly number[]): { id: number; sessionId: number; owner_pid: number | null; owner_host: string | null } | null {
  const stmt = db.prepare("SELECT r.id, r.owner_pid, r.owner_host, r.owner_start, r.heartbeat_at FROM runs r JOIN variants v ON v.id = r.variant_id WHERE v.session_id = ? AND r.status = 'running'");
  for (const sessionId of sessionIds) {
    const live = (stmt.all(sessionId) as Array<OwnerRow & { id: number }>).find((r) => ownerAlive(r));
    if (live) return { id: live.id, sessionId, owner_pid: live.owner_pid, owner_host: live.owner_host };
  }
  return null;
}

/**
 * Starts a pass run for `variantId` unless another live PROCESS has a pass of the same
 * session running (this process's own passes are ordered by its runner and locks). Check
 * and insert are one IMMEDIATE transaction, so two processes cannot both claim.
 */
export function claimPassRun(db: DB, sessionId: number, insert: () => number): number {
  return writeTransaction(db, () => {
    // Marked for deletion meanwhile (another process's delete): its rows are going.
    if (db.prepare('SELECT 1 FROM session_deletions WHERE session_id = ?').get(sessionId)) throw new StudioError('not_found', `session ${sessionId} is being deleted`);
    const me = currentOwner();
    const rows = db
      .prepare("SELECT r.id, r.owner_pid, r.owner_host, r.owner_start, r.heartbeat_at FROM runs r JOIN variants v ON v.id = r.variant_id WHERE v.session_id = ? AND r.status = 'running' AND r.kind = 'pass'")
      .all(sessionId) as Array<OwnerRow & { id: number }>;
    const other = rows.find((r) => !(r.owner_pid === me.pid && r.owner_host === me.host) && ownerAlive(r));
    if (other) throw new StudioError('busy', `session ${sessionId} has a compaction running in process ${other.owner_pid} on ${other.owner_host} (run ${other.id}); wait for it to finish or stop it`);
    const runId = insert();
    recordOwner(db, runId);
    return runId;
  });
}
