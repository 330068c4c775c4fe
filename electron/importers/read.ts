/**
 * From bytes to importer output: choose JSONL or whole-document reading, detect (or
 * take the forced) format, run the importer. JSONL stays a lazy stream of records
 * all the way to the writer.
 */
import path from 'node:path';
import { detectDocument, detectJsonlRecord, unknownFormatMessage } from './detect.js';
import { ImportError } from './errors.js';
import { IMPORTERS } from './index.js';
import { importClaudeCode } from './claude-code.js';
import { DEFAULT_MAX_RECORD_BYTES, Peekable, fileLines, jsonlRecords, parseJsonDocument, readDocumentText, textLines, type Line } from './source.js';
import { FORMATS, isFormatName, type FormatName, type ImportedSession, type ParsedInput } from './types.js';

export interface ReadOptions {
  /** Forced format name (`--format`); auto-detected when absent. */
  format?: string;
  /** Per-record size limit in bytes (default 64 MiB). */
  maxRecordBytes?: number;
  /** Claude Code only: title when the file has none (a subagent's .meta.json description). */
  titleHint?: string;
}

export interface ReadResult {
  format: FormatName;
  sessions: ImportedSession[];
}

type Container = 'jsonl' | 'document';

function forcedFormat(opts: ReadOptions, fileName: string): FormatName | null {
  if (opts.format === undefined || opts.format === '') return null;
  if (!isFormatName(opts.format)) throw new ImportError(fileName, `unknown format "${opts.format}": expected one of ${FORMATS.join(', ')}`);
  return opts.format;
}

/**
 * JSONL or one document? By extension; for other names, by content: two or more
 * lines that each parse alone mean JSONL.
 */
function sniffContainer(fileName: string, lines: () => Iterable<Line>): Container {
  const ext = path.extname(fileName).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (ext === '.json' || ext === '.traj') return 'document';
  return looksLikeJsonl(lines()) ? 'jsonl' : 'document';
}

function looksLikeJsonl(lines: Iterable<Line>): boolean {
  let parsed = 0;
  for (const { text } of lines) {
    if (!/\S/.test(text)) continue;
    try {
      const v: unknown = JSON.parse(text);
      if (v === null || typeof v !== 'object') return false;
    } catch {
      return false;
    }
    if (++parsed >= 2) return true;
  }
  return false;
}

function runImporter(format: FormatName, input: ParsedInput, fileName: string, opts: ReadOptions): ImportedSession[] {
  if (format === 'claude-code') return importClaudeCode(input, { fileName }, { titleHint: opts.titleHint });
  return IMPORTERS[format].import(input, { fileName });
}

function readJsonl(lines: Iterable<Line>, fileName: string, opts: ReadOptions): ReadResult {
  const records = new Peekable(jsonlRecords(lines, fileName)[Symbol.iterator]());
  const first = records.peek();
  if (first === undefined) throw new ImportError(fileName, 'the file has no records: expected JSONL (one JSON object per line)');
  const format = forcedFormat(opts, fileName) ?? detectJsonlRecord(first.value);
  if (!format) {
    records.return();
    throw new ImportError(fileName, unknownFormatMessage('jsonl'), first.line);
  }
  return { format, sessions: runImporter(format, { kind: 'jsonl', records }, fileName, opts) };
}

function readDocument(text: string, fileName: string, opts: ReadOptions, fallbackLines: () => Iterable<Line>): ReadResult {
  let value: unknown;
  try {
    value = parseJsonDocument(text, fileName);
  } catch (e) {
    // A .json file that is really JSONL (one object per line) is read as JSONL.
    if (looksLikeJsonl(fallbackLines())) return readJsonl(fallbackLines(), fileName, opts);
    throw e;
  }
  const format = forcedFormat(opts, fileName) ?? detectDocument(value, fileName);
  if (!format) throw new ImportError(fileName, unknownFormatMessage('document'));
  return { format, sessions: runImporter(format, { kind: 'document', value }, fileName, opts) };
}

/** Reads a file on disk. `size` comes from inspectFile (the document size limit). */
export function readFile(filePath: string, fileName: string, size: number, opts: ReadOptions = {}): ReadResult {
  const limit = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const lines = (): Iterable<Line> => fileLines(filePath, fileName, limit);
  if (sniffContainer(fileName, lines) === 'jsonl') return readJsonl(lines(), fileName, opts);
  return readDocument(readDocumentText(filePath, fileName, size, limit), fileName, opts, lines);
}

/** Reads text handed over in memory (window import, browser mode). */
export function readText(text: string, fileName: string, opts: ReadOptions = {}): ReadResult {
  const limit = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const lines = (): Iterable<Line> => textLines(text, fileName, limit);
  if (sniffContainer(fileName, lines) === 'jsonl') return readJsonl(lines(), fileName, opts);
  if (text.length > limit) {
    throw new ImportError(fileName, `a JSON document of ${text.length} characters is larger than the per-record limit of ${limit} bytes: expected a smaller document, or JSONL (one record per line)`);
  }
  return readDocument(text, fileName, opts, lines);
}
