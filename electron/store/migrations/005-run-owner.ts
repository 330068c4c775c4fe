/**
 * Migration 5: a run's owner and heartbeat (electron/store/run-owner.ts). A run records the
 * process that runs it (pid, host, the process's start identity, so a reused pid is not
 * mistaken for it) and a heartbeat it refreshes while it works. Any process that opens the
 * database marks 'running' runs whose owner is gone as failed ("interrupted: …") and never
 * touches a live one. Runs recorded before this migration have no owner.
 * Adds columns only; no existing row is rewritten.
 */
export const migration005 = {
  version: 5,
  name: 'run-owner',
  sql: /* sql */ `
ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
ALTER TABLE runs ADD COLUMN owner_host TEXT;
ALTER TABLE runs ADD COLUMN owner_start TEXT;
ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
CREATE INDEX runs_running ON runs(status) WHERE status = 'running';
`,
};
