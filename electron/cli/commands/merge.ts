/** `merge A.db B.db … --db OUT`: the union of databases that started from the same sessions (sweep shards). */
import fs from 'node:fs';
import path from 'node:path';
import { mergeDatabase, type MergeSourceReport } from '../../store/merge.js';
import { UsageError, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'merge',
  summary: 'Merge databases (e.g. sweep shards) into the --db database: sessions by content, variants by identity, runs once',
  usage: 'merge <file.db> [more.db ...] [--db OUT] [--json]',
  options: {},
  minPositionals: 1,
  run(ctx) {
    const files = ctx.positionals.map((p) => path.resolve(ctx.cwd, p));
    for (const f of files) {
      if (!fs.existsSync(f)) throw new UsageError(`merge: no such file: ${f}`);
      if (path.resolve(f) === path.resolve(ctx.dbPath)) throw new UsageError(`merge: ${f} is the output database itself`);
    }
    const out = ctx.openDb();
    const reports: MergeSourceReport[] = [];
    for (const f of files) {
      ctx.err(`merging ${f}…`);
      reports.push(mergeDatabase(out, f));
    }
    if (ctx.jsonMode) ctx.json({ output: ctx.dbPath, sources: reports });
    else
      for (const r of reports) {
        const added = (t: string) => r.tables[t]?.added ?? 0;
        ctx.out(`${r.file}: ${added('sessions')} sessions, ${added('variants')} variants, ${added('runs')} runs, ${added('summaries')} summaries added`);
      }
    return 0;
  },
};
