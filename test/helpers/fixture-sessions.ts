/**
 * The real fixture transcripts (test/fixtures/<format>/, see test/fixtures/README.md)
 * imported into a temporary SQLite file with the project's own importer, for planner and
 * pass tests. Everything is read from inside the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DB } from '../../electron/store/db.js';
import { importFiles, type ImportedSessionInfo } from '../../electron/importers/import.js';
import { listToolCycles } from '../../electron/store/turns.js';
import { tempDb } from './temp-db.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'test/fixtures');

/**
 * The folders of real, MIT-licensed transcripts. `test/fixtures/codex/` is hand-written and
 * tested on its own (import-formats.test.ts), so it is not among them.
 */
export const REAL_FIXTURE_FORMATS = ['claude-code', 'openai', 'openhands', 'swe-agent', 'tau-bench'] as const;

/** A transcript, not a README, LICENSE or subagent .meta.json sidecar (which the importer reads itself). */
export function isTranscriptFile(name: string): boolean {
  return /\.(jsonl|json|traj)$/.test(name) && !name.endsWith('.meta.json');
}

/** Every real transcript file, as `<format>/<file>` relative to FIXTURES, sorted. */
export function fixtureNames(): string[] {
  const names: string[] = [];
  for (const sub of REAL_FIXTURE_FORMATS) for (const f of fs.readdirSync(path.join(FIXTURES, sub)).sort()) if (isTranscriptFile(f)) names.push(`${sub}/${f}`);
  return names;
}

/** Every real transcript file, as absolute paths. */
export function fixtureFiles(): string[] {
  return fixtureNames().map((n) => path.join(FIXTURES, n));
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

/**
 * The loss ledger of Claude Code's own summary of the spotter session's turns 0-206 (its
 * compaction at turn 207) against the facts of those turns: derived in facts.test.ts
 * (which pins the span's fact counts), used wherever that baseline shows.
 */
export const SPOTTER_CC_RETENTION = {
  request: { kept: 1, total: 1 },
  todo: { kept: 0, total: 0 },
  path: { kept: 19, total: 28 },
  command: { kept: 4, total: 41 },
  error: { kept: 1, total: 5 },
  identifier: { kept: 14, total: 23 },
  number: { kept: 2, total: 3 },
};
