/** `doctor`: SQLite's full integrity check of the store, and a backup copy of it before any repair. */
import path from 'node:path';
import { LATEST_VERSION, openDatabase } from '../../store/db.js';
import { backupDatabase, checkIntegrity } from '../../store/doctor.js';
import { corruptAdvice } from '../../store/db-errors.js';
import { stringOption, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'doctor',
  summary: "Check the database file in full (SQLite's integrity_check) and optionally copy it (--backup)",
  usage: 'doctor [--backup FILE] [--db PATH] [--json]',
  description:
    'Opens the database read-only (even one too damaged for the other commands, or written by a newer version), runs the full integrity check and, with --backup, copies it page by page through SQLite\'s backup API. Exit 0 when the file is sound, 1 when it is not.',
  options: {
    backup: { type: 'string', valueName: 'FILE', description: 'copy the database to FILE (a new file) before anything else' },
  },
  maxPositionals: 0,
  async run(ctx) {
    // Its own connection: read-only, no quick check on open (this command is the check), no migration.
    const db = openDatabase(ctx.dbPath, { readonly: true, check: false });
    try {
      const backupTo = stringOption(ctx, 'backup');
      let backup: { file: string; pages: number } | null = null;
      if (backupTo !== undefined) {
        const file = path.resolve(ctx.cwd, backupTo);
        backup = { file, pages: await backupDatabase(db, file) };
      }
      const report = checkIntegrity(db);
      const newer = report.schemaVersion !== null && report.schemaVersion > LATEST_VERSION;
      if (ctx.jsonMode) {
        ctx.json({ file: ctx.dbPath, ok: report.problems.length === 0, problems: report.problems, schemaVersion: report.schemaVersion, appSchemaVersion: LATEST_VERSION, backup });
      } else {
        if (backup) ctx.out(`Copied ${ctx.dbPath} to ${backup.file} (${backup.pages} pages).`);
        ctx.out(`Schema version ${report.schemaVersion ?? 'unreadable'}; this app knows up to ${LATEST_VERSION}${newer ? ' (written by a newer version: the app opens it read-only)' : ''}.`);
        if (report.problems.length === 0) ctx.out(`${ctx.dbPath}: integrity check ok.`);
        else {
          ctx.out(`${ctx.dbPath}: integrity check found ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}:`);
          for (const p of report.problems) ctx.out(`  ${p}`);
          ctx.out(`To do: ${corruptAdvice(ctx.dbPath)}.`);
        }
      }
      return report.problems.length === 0 ? 0 : 1;
    } finally {
      db.close();
    }
  },
};
