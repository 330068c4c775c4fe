/**
 * The import entry points used by the CLI, the services (window) and the demo:
 * `importFiles(db, paths, opts)` and `importText(db, fileName, text, opts)`.
 *
 * - One transaction per call: any error (bad line 90,000 of the third file) leaves
 *   the database exactly as it was.
 * - Duplicates: the sha256 of the bytes is checked before parsing; content already in
 *   the store is reported with `duplicate: true`, not imported again.
 * - Claude Code subagent files given together with their session file (or found
 *   beside it on disk) become child sessions of it.
 */
import path from 'node:path';
import type { ImportReport } from '../../shared/contract.js';
import type { DB } from '../store/db.js';
import { childSessions, findSessionByHash, getSession, sessionInfoOf } from '../store/sessions.js';
import { DEFAULT_TOKENIZER, type TokenizerName } from '../tokenizer.js';
import { ImportError } from './errors.js';
import { inspectFile, inspectText, type FileFacts } from './source.js';
import type { ImportedSession } from './types.js';
import { readFile, readText, type ReadOptions } from './read.js';
import { agentIdFromName, discoverSubagentFiles, isAgentFile, parentAmong, readAgentMeta } from './subagents.js';
import { SessionWriter } from './writer.js';

export { ImportError, isImportError } from './errors.js';
export { FORMATS, type FormatName } from './types.js';

export interface ImportOptions {
  /** Force a format instead of detecting it (`--format`). */
  format?: string;
  /** Tokenizer for stored token counts. Default o200k_base (electron/tokenizer.ts). */
  tokenizer?: TokenizerName;
  /** Per-record size limit in bytes. Default 64 MiB (electron/importers/source.ts). */
  maxRecordBytes?: number;
  /** Claude Code: also import subagent files found beside a session file. Default true. */
  discoverSubagents?: boolean;
}

export type ImportedSessionInfo = ImportReport['sessions'][number];

/** A session and its descendants, parent first. */
function reportTree(db: DB, id: number, duplicate: boolean, out: ImportedSessionInfo[]): void {
  const s = getSession(db, id);
  if (!s) return;
  out.push({ ...sessionInfoOf(s), duplicate });
  for (const child of childSessions(db, id)) reportTree(db, child.id, duplicate, out);
}

function readOptions(opts: ImportOptions): ReadOptions {
  return { format: opts.format, maxRecordBytes: opts.maxRecordBytes };
}

/** Writes the sessions one source produced; the first carries the source hash, later ones a derived one. */
function writeAll(writer: SessionWriter, db: DB, sessions: ImportedSession[], sourceFile: string, hash: string, out: ImportedSessionInfo[]): void {
  sessions.forEach((session, i) => {
    const id = writer.write(session, { sourceFile, sourceHash: i === 0 ? hash : `${hash}#${i}`, parentSessionId: null });
    reportTree(db, id, false, out);
  });
}

interface PlannedFile {
  path: string;
  name: string;
  facts: FileFacts;
  children: Array<{ path: string; name: string; facts: FileFacts }>;
}

/** Inspects every file first (missing / binary / empty fail before any write) and groups subagent files. */
function planFiles(paths: readonly string[], opts: ImportOptions): PlannedFile[] {
  const absolute = paths.map((p) => path.resolve(p));
  const inspect = (p: string): FileFacts => inspectFile(p, path.basename(p));
  const facts = new Map(absolute.map((p) => [p, inspect(p)] as const));
  const parentOf = new Map<string, string>();
  for (const p of absolute) {
    if (!isAgentFile(p)) continue;
    const parent = parentAmong(p, absolute);
    if (parent) parentOf.set(p, parent);
  }
  const planned: PlannedFile[] = [];
  for (const p of absolute) {
    if (parentOf.has(p)) continue;
    const children = absolute.filter((c) => parentOf.get(c) === p);
    if (opts.discoverSubagents !== false) {
      for (const found of discoverSubagentFiles(p)) if (!children.includes(found)) children.push(found);
    }
    planned.push({
      path: p,
      name: path.basename(p),
      facts: facts.get(p)!,
      children: children.map((c) => ({ path: c, name: path.basename(c), facts: facts.get(c) ?? inspect(c) })),
    });
  }
  return planned;
}

/**
 * Imports files from disk in one transaction. Returns every session written or found
 * as a duplicate (parents before their children), in the order of `paths`.
 */
export function importFiles(db: DB, paths: readonly string[], opts: ImportOptions = {}): ImportReport {
  if (paths.length === 0) throw new ImportError('(no file)', 'nothing to import: expected at least one file');
  const tokenizer = opts.tokenizer ?? DEFAULT_TOKENIZER;
  const planned = planFiles(paths, opts);
  const out: ImportedSessionInfo[] = [];
  db.transaction(() => {
    const writer = new SessionWriter(db, tokenizer, new Date().toISOString());
    for (const file of planned) {
      const existing = findSessionByHash(db, file.facts.hash);
      if (existing !== null) {
        reportTree(db, existing, true, out);
        continue;
      }
      const { format, sessions } = readFile(file.path, file.name, file.facts.size, readOptions(opts));
      if (format === 'claude-code' && sessions.length > 0) {
        for (const child of file.children) {
          const meta = readAgentMeta(child.path);
          const description = typeof meta?.description === 'string' ? meta.description : undefined;
          const [session] = readFile(child.path, child.name, child.facts.size, { ...readOptions(opts), format: 'claude-code', titleHint: description }).sessions;
          session.sourceFile = child.name;
          session.sourceHash = child.facts.hash;
          session.agentId ??= agentIdFromName(child.path);
          if (meta) session.metadata = { ...session.metadata, agentMeta: meta };
          (sessions[0].children ??= []).push(session);
        }
        writeAll(writer, db, sessions, file.name, file.facts.hash, out);
        continue;
      }
      writeAll(writer, db, sessions, file.name, file.facts.hash, out);
      // Not a Claude Code session: its "subagent" files are imported on their own.
      for (const child of file.children) {
        if (findSessionByHash(db, child.facts.hash) !== null) continue;
        writeAll(writer, db, readFile(child.path, child.name, child.facts.size, readOptions(opts)).sessions, child.name, child.facts.hash, out);
      }
    }
  })();
  return { sessions: out };
}

/** Imports text handed over in memory (window file input, drag-and-drop, browser mode). */
export function importText(db: DB, fileName: string, text: string, opts: ImportOptions = {}): ImportReport {
  const name = path.basename(fileName);
  const facts = inspectText(text, name);
  const tokenizer = opts.tokenizer ?? DEFAULT_TOKENIZER;
  const out: ImportedSessionInfo[] = [];
  db.transaction(() => {
    const existing = findSessionByHash(db, facts.hash);
    if (existing !== null) {
      reportTree(db, existing, true, out);
      return;
    }
    const { sessions } = readText(text, name, readOptions(opts));
    writeAll(new SessionWriter(db, tokenizer, new Date().toISOString()), db, sessions, name, facts.hash, out);
  })();
  return { sessions: out };
}
