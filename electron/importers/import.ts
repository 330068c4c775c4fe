/**
 * The import entry points used by the CLI, the services (window) and the demo:
 * `importFiles(db, paths, opts)` (files and folders on disk), `importTexts(db, files, opts)`
 * (several files handed over in memory, named by their relative paths) and
 * `importText(db, fileName, text, opts)`. Files on disk and in memory go through the same
 * planner (which subagent file belongs to which session: subagents.ts) and the same
 * transaction body: they differ only in how a file's bytes, first line and `.meta.json`
 * sidecar are read (`SourceFile`).
 *
 * - All or nothing: any error (bad line 90,000 of the third file) leaves the database
 *   as it was. An import that takes the write lock for less than IMPORT_CHUNK_MS is one
 *   write transaction; a longer one commits every IMPORT_CHUNK_MS (or IMPORT_CHUNK_TURNS
 *   turns, whichever comes first; so another writer, the window's `saveVariant` or
 *   `setSettings`, gets the lock between chunks within tens of milliseconds) with its sessions hidden
 *   under the delete mark (electron/store/session-deletion.ts) until the last, small step
 *   reveals them all at once; a failure or cancel deletes what was committed, and an import
 *   that dies half-way is finished as a delete by whoever opens the store next (openDatabase).
 * - Duplicates: the sha256 of the bytes is checked before parsing; content already in
 *   the store is reported with `duplicate: true`, not imported again; content another import
 *   is writing right now (hidden, its hash held) fails with "being imported", never twice.
 * - Claude Code subagent files given together with their session file (or found
 *   beside it on disk) become child sessions of it; Task calls and the compaction agent
 *   are then linked (claude-code-links.ts).
 * - A folder imports every transcript under it, recursively (a Claude Code project folder:
 *   every session with its subagents); files there whose format is not recognised are
 *   skipped, not errors.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportReport } from '../../shared/contract.js';
import { chunkedWriteTransaction, type DB } from '../store/db.js';
import { abandonImportedSessions, hideImportingSessions, isHiddenSession, revealImportedSessions } from '../store/session-deletion.js';
import { childSessions, findSessionByHash, getSession, sessionInfoOf } from '../store/sessions.js';
import { DEFAULT_TOKENIZER, type TokenizerName } from '../tokenizer.js';
import { ImportError } from './errors.js';
import { linkClaudeCodeChildren } from './claude-code-links.js';
import { inspectFile, inspectText, type FileFacts } from './source.js';
import type { ImportedSession } from './types.js';
import { readFile, readText, type ReadOptions, type ReadResult } from './read.js';
import { agentIdFromName, agentMetaPath, discoverSubagentFiles, isAgentFile, parseAgentMeta, parentAmong, readAgentMeta, transcriptsUnder } from './subagents.js';
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
  /**
   * Progress: turns written so far and files begun, every 1,000 turns and at each file
   * (electron/importers/writer.ts). It may throw to stop the import: the open chunk rolls
   * back, the committed ones are deleted, and the store is as it was (how the app cancels an import).
   */
  onProgress?: (p: { turns: number; files: number; totalFiles: number }) => void;
  /** At most this many turns per committed chunk (IMPORT_CHUNK_TURNS; tests make it smaller). */
  chunkTurns?: number;
  /** A chunk commits once it has held the write lock this long (IMPORT_CHUNK_MS; tests that count chunks in turns make it infinite). */
  chunkMs?: number;
}

/**
 * A chunk of a long import commits once it has held the write lock this long (or has
 * IMPORT_CHUNK_TURNS turns): a write of another connection of this process waits at most
 * about this long (the chunked writer then leaves it the lock, `chunkedWriteTransaction` in
 * electron/store/db.ts); one of another process, until the next pause (every
 * OTHER_PROCESS_PAUSE_EVERY chunks).
 */
export const IMPORT_CHUNK_MS = 25;
/** At most this many turns per chunk, however fast they are written. */
export const IMPORT_CHUNK_TURNS = 5_000;

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

/** A session to report (with its descendants) once the import is done: written now, or found as a duplicate. */
interface Reported {
  id: number;
  duplicate: boolean;
}

/** Writes the sessions one source produced; the first carries the source hash, later ones a derived one. */
function writeAll(writer: SessionWriter, sessions: ImportedSession[], sourceFile: string, hash: string, out: Reported[]): void {
  sessions.forEach((session, i) => {
    const id = writer.write(session, { sourceFile, sourceHash: i === 0 ? hash : `${hash}#${i}`, parentSessionId: null });
    out.push({ id, duplicate: false });
  });
}

/**
 * One file to import, wherever its bytes are. `key` is what the subagent planner compares
 * (an absolute path on disk, the relative name of a file sent by the window); `name` the
 * display name stored with the session.
 */
interface SourceFile {
  key: string;
  name: string;
  facts: FileFacts;
  /** Found by walking a folder: a file of no known format is skipped, not an error. */
  optional: boolean;
  read(opts: ReadOptions): ReadResult;
  /** The subagent's `.meta.json` sidecar, parsed, or null. */
  agentMeta(): Record<string, unknown> | null;
}

interface PlannedFile {
  file: SourceFile;
  children: SourceFile[];
}

/**
 * Groups subagent files under their session files: those given together (parentAmong), and
 * with discovery on, those found beside a session file on disk (`discover`).
 */
function planSources(sources: readonly SourceFile[], lineOf: ((key: string) => string) | undefined, discover: (s: SourceFile) => SourceFile[]): PlannedFile[] {
  const keys = sources.map((s) => s.key);
  const parentOf = new Map<string, string>();
  for (const s of sources) {
    if (!isAgentFile(s.key)) continue;
    const parent = parentAmong(s.key, keys, lineOf);
    if (parent) parentOf.set(s.key, parent);
  }
  const planned: PlannedFile[] = [];
  for (const s of sources) {
    if (parentOf.has(s.key)) continue;
    const children = sources.filter((c) => parentOf.get(c.key) === s.key);
    for (const found of discover(s)) if (!children.some((c) => c.key === found.key)) children.push(found);
    planned.push({ file: s, children });
  }
  return planned;
}

function isUnknownFormat(e: unknown): boolean {
  return e instanceof ImportError && /unknown format:/.test(e.message);
}

/** The transaction body shared by every entry point: dedupe, read, attach subagents, link, write (in chunks), reveal. */
function writePlanned(db: DB, planned: readonly PlannedFile[], opts: ImportOptions): ImportReport {
  const tokenizer = opts.tokenizer ?? DEFAULT_TOKENIZER;
  const chunkTurns = opts.chunkTurns ?? IMPORT_CHUNK_TURNS;
  const chunkMs = opts.chunkMs ?? IMPORT_CHUNK_MS;
  const reported: Reported[] = [];
  let files = 0;
  let turns = 0;
  let committedTurns = 0;
  const progress = () => opts.onProgress?.({ turns, files, totalFiles: planned.length });
  /** Sessions whose rows a committed chunk holds: hidden until the end, deleted if the import fails. */
  const hidden: number[] = [];
  try {
    return chunkedWriteTransaction(db, (commit) => {
      /** When the open chunk began (took the lock). */
      let chunkStarted = performance.now();
      const writer = new SessionWriter(
        db,
        tokenizer,
        new Date().toISOString(),
        (written) => {
          turns = written;
          progress();
        },
        (written) => {
          // Inside a caller's transaction (commit null) the import is one savepoint of it.
          if (commit === null || (written - committedTurns < chunkTurns && performance.now() - chunkStarted < chunkMs)) return;
          // Every session begun so far is hidden before its first rows commit.
          const fresh = writer.sessionIds.slice(hidden.length);
          hideImportingSessions(db, fresh);
          hidden.push(...fresh);
          commit();
          committedTurns = written;
          chunkStarted = performance.now();
        },
      );
      for (const { file, children } of planned) {
        files++;
        progress();
        const existing = findSessionByHash(db, file.facts.hash);
        if (existing !== null) {
          // Hidden and not this import's own (a file given twice): another import is writing it.
          if (isHiddenSession(db, existing) && !writer.sessionIds.includes(existing)) throw new ImportError(file.name, 'this file is being imported right now (or an interrupted import of it is being cleaned up): try again once that has finished');
          reported.push({ id: existing, duplicate: true });
          continue;
        }
        let result: ReadResult;
        try {
          result = file.read(readOptions(opts));
        } catch (e) {
          // Detection fails before anything is read into the store: safe to skip.
          if (file.optional && isUnknownFormat(e)) continue;
          throw e;
        }
        const { format, sessions } = result;
        if (format === 'claude-code' && sessions.length > 0) {
          for (const child of children) {
            const meta = child.agentMeta();
            const description = typeof meta?.description === 'string' ? meta.description : undefined;
            const [session] = child.read({ ...readOptions(opts), format: 'claude-code', titleHint: description }).sessions;
            session.sourceFile = child.name;
            session.sourceHash = child.facts.hash;
            session.agentId ??= agentIdFromName(child.key);
            if (meta) session.metadata = { ...session.metadata, agentMeta: meta };
            (sessions[0].children ??= []).push(session);
          }
          for (const s of sessions) linkClaudeCodeChildren(s);
          writeAll(writer, sessions, file.name, file.facts.hash, reported);
          continue;
        }
        writeAll(writer, sessions, file.name, file.facts.hash, reported);
        // Not a Claude Code session: its "subagent" files are imported on their own.
        for (const child of children) {
          if (findSessionByHash(db, child.facts.hash) !== null) continue;
          writeAll(writer, child.read(readOptions(opts)).sessions, child.name, child.facts.hash, reported);
        }
      }
      // The last, small step: everything appears at once.
      revealImportedSessions(db, hidden);
      const out: ImportedSessionInfo[] = [];
      for (const r of reported) reportTree(db, r.id, r.duplicate, out);
      return { sessions: out };
    });
  } catch (e) {
    if (hidden.length > 0) {
      try {
        abandonImportedSessions(db, hidden);
      } catch {
        // Still marked: whoever opens the store next finishes the delete (studio-service.ts).
      }
    }
    throw e;
  }
}

function diskSource(p: string, optional: boolean): SourceFile {
  const name = path.basename(p);
  const facts = inspectFile(p, name);
  return { key: p, name, facts, optional, read: (o) => readFile(p, name, facts.size, o), agentMeta: () => readAgentMeta(p) };
}

/** Files as given, folders as every transcript under them (recursively). */
function expandPaths(paths: readonly string[]): Array<{ path: string; optional: boolean }> {
  const out: Array<{ path: string; optional: boolean }> = [];
  const seen = new Set<string>();
  for (const p of paths.map((x) => path.resolve(x))) {
    let isDir = false;
    try {
      isDir = fs.statSync(p).isDirectory();
    } catch {
      // Missing: inspectFile reports it with the file's name.
    }
    if (!isDir) {
      // A file given twice is reported twice (new, then duplicate), as before folders existed.
      out.push({ path: p, optional: false });
      seen.add(p);
      continue;
    }
    const found = transcriptsUnder(p);
    if (found.length === 0) throw new ImportError(path.basename(p), `no transcript files in the folder ${p}: expected .jsonl, .json or .traj files`);
    for (const f of found) {
      if (seen.has(f)) continue;
      seen.add(f);
      out.push({ path: f, optional: true });
    }
  }
  return out;
}

/**
 * Imports files and folders from disk, all or nothing (writePlanned). Returns every session written or
 * found as a duplicate (parents before their children), in the order of `paths`.
 */
export function importFiles(db: DB, paths: readonly string[], opts: ImportOptions = {}): ImportReport {
  if (paths.length === 0) throw new ImportError('(no file)', 'nothing to import: expected at least one file');
  // Every file is inspected first: missing / binary / empty fail before any write.
  const sources = expandPaths(paths).map((e) => diskSource(e.path, e.optional));
  const planned = planSources(sources, undefined, (s) => (opts.discoverSubagents === false ? [] : discoverSubagentFiles(s.key).map((c) => sources.find((x) => x.key === c) ?? diskSource(c, false))));
  return writePlanned(db, planned, opts);
}

/** A file handed over in memory: its relative path (`project/<session>/subagents/agent-x.jsonl`) and text. */
export interface TextFile {
  fileName: string;
  text: string;
}

/**
 * Imports several files handed over in memory (a multi-file pick, a dropped folder), all
 * or nothing, linking subagent files to their session file exactly as `importFiles` does
 * for paths: `fileName`s are relative paths, `.meta.json` sidecars are read, not imported.
 */
export function importTexts(db: DB, files: readonly TextFile[], opts: ImportOptions = {}): ImportReport {
  if (files.length === 0) throw new ImportError('(no file)', 'nothing to import: expected at least one file');
  const byKey = new Map(files.map((f) => [path.posix.normalize(f.fileName.replace(/\\/g, '/')), f.text] as const));
  const sources: SourceFile[] = [];
  for (const [key, text] of byKey) {
    if (/\.meta\.json$/i.test(key)) continue;
    const name = path.posix.basename(key);
    sources.push({ key, name, facts: inspectText(text, name), optional: false, read: (o) => readText(text, name, o), agentMeta: () => parseAgentMeta(byKey.get(agentMetaPath(key)) ?? null) });
  }
  if (sources.length === 0) throw new ImportError('(no file)', 'nothing to import: only .meta.json sidecars, expected transcript files');
  const lineOf = (key: string): string => {
    const text = byKey.get(key) ?? '';
    const nl = text.indexOf('\n');
    return nl === -1 ? text : text.slice(0, nl);
  };
  return writePlanned(db, planSources(sources, lineOf, () => []), opts);
}

/** Imports text handed over in memory (window file input, drag-and-drop, browser mode). */
export function importText(db: DB, fileName: string, text: string, opts: ImportOptions = {}): ImportReport {
  const name = path.basename(fileName);
  const facts = inspectText(text, name);
  return writePlanned(db, [{ file: { key: name, name, facts, optional: false, read: (o) => readText(text, name, o), agentMeta: () => null }, children: [] }], opts);
}
