/**
 * Migration 13: who put a session's hiding mark (`session_deletions`): the process that is
 * deleting it or importing it in chunks (pid, host, process start, as a run's owner in
 * migration 5). "Pending deletions" are only the marks whose owner is gone (or unknown), so
 * the app starting while a CLI import is between two chunks leaves that import alone.
 * Adds columns only.
 */
export const migration013 = {
  version: 13,
  name: 'mark-owner',
  sql: /* sql */ `
ALTER TABLE session_deletions ADD COLUMN owner_pid INTEGER;
ALTER TABLE session_deletions ADD COLUMN owner_host TEXT;
ALTER TABLE session_deletions ADD COLUMN owner_start TEXT;
`,
};
