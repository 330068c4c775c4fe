/**
 * The real fixture transcripts (/work/shared/fixtures, see its README) imported into a
 * temporary SQLite file with the project's own importer, for planner and pass tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DB } from '../../electron/store/db.js';
import { importFiles, type ImportedSessionInfo } from '../../electron/importers/import.js';
import { listToolCycles } from '../../electron/store/turns.js';
import { tempDb } from './temp-db.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.resolve(ROOT, '../shared/fixtures');

/** Every transcript file (subagent .meta.json sidecars are read by the importer itself). */
export function fixtureFiles(): string[] {
  const files: string[] = [];
  for (const sub of fs.readdirSync(FIXTURES).sort()) {
    const dir = path.join(FIXTURES, sub);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir).sort()) if (!f.endsWith('.meta.json')) files.push(path.join(dir, f));
  }
  return files;
}

export interface FixtureDb {
  db: DB;
  dir: string;
  sessions: ImportedSessionInfo[];
  close(): void;
}

/** A temp database with every fixture imported once (duplicates reported by the importer are left out). */
export function fixtureDb(): FixtureDb {
  const { db, dir, cleanup } = tempDb('cs-fixtures-', 'studio.sqlite');
  const sessions = importFiles(db, fixtureFiles()).sessions.filter((s) => !s.duplicate);
  return { db, dir, sessions, close: cleanup };
}

/** The session whose source file name contains `part` (the first match). */
export function sessionBySource(f: FixtureDb, part: string): ImportedSessionInfo {
  const s = f.sessions.find((x) => x.sourceFile.includes(part));
  if (!s) throw new Error(`no fixture session from a file containing '${part}'`);
  return s;
}

/** Every row of the turns table, as text: compared before and after a pass. */
export function turnsDump(db: DB): string {
  return JSON.stringify(db.prepare('SELECT * FROM turns ORDER BY id').all());
}

/**
 * Tool cycles split by a set of positions (summarized, dropped...): a cycle is split when
 * exactly one of its tool_use and tool_result turns is in the set.
 */
export function splitCycles(db: DB, sessionId: number, positions: ReadonlySet<number>): Array<{ usePosition: number; resultPosition: number }> {
  return listToolCycles(db, sessionId).filter((c) => positions.has(c.usePosition) !== positions.has(c.resultPosition));
}
