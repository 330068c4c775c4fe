/**
 * Reading import input without ever holding a JSONL file as one string: files are
 * read in chunks with fs.readSync and split on '\n' bytes (a UTF-8 continuation byte
 * is never 0x0A, so decoding line by line is exact). Every record, a JSONL line or a
 * whole JSON document, is bounded by a per-record size limit so a 100 MB line fails
 * with a clear message instead of exhausting memory.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { escapeControls, excerpt, ImportError } from './errors.js';

/** Largest single record (one JSONL line, or one JSON document) accepted: 64 MiB. */
export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;
const MB = 1024 * 1024;

export interface FileFacts {
  /** sha256 of the file's bytes, hex. */
  hash: string;
  size: number;
}

function formatMb(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < MB) return `${Math.round(bytes / 1024)} KB`;
  return `${Math.round((bytes / MB) * 10) / 10} MB`;
}

/**
 * One streaming pass over a file before parsing: its content hash (duplicate
 * detection happens before any parsing), and the cheap rejections: missing file,
 * directory, binary content (NUL bytes never occur in JSON text), empty file.
 */
export function inspectFile(filePath: string, displayName: string): FileFacts {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(filePath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ImportError(displayName, `file not found (${filePath}): expected a transcript file`);
    throw new ImportError(displayName, `cannot read ${filePath}: ${(e as Error).message}`);
  }
  if (stat.isDirectory()) throw new ImportError(displayName, `${filePath} is a directory: expected a transcript file`);
  // A FIFO, a socket or a device would block the read (or never end): only regular files are read.
  if (!stat.isFile()) throw new ImportError(displayName, `${filePath} is not a regular file (a pipe, a socket or a device): expected a transcript file`);
  const hash = crypto.createHash('sha256');
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let offset = 0;
  let sawContent = false;
  const fd = fs.openSync(filePath, 'r');
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK_BYTES, offset);
      if (n === 0) break;
      const chunk = n === CHUNK_BYTES ? buf : buf.subarray(0, n);
      const nul = chunk.indexOf(0);
      if (nul !== -1) throw new ImportError(displayName, `binary file (NUL byte at offset ${offset + nul}): expected UTF-8 JSON or JSONL text`);
      if (!sawContent && /\S/.test(chunk.toString('latin1'))) sawContent = true;
      hash.update(chunk);
      offset += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  if (!sawContent) throw new ImportError(displayName, 'the file is empty: expected a JSON document or JSONL records');
  return { hash: hash.digest('hex'), size: offset };
}

/** The same checks and hash for text handed over directly (window import, browser mode). */
export function inspectText(text: string, displayName: string): FileFacts {
  const nul = text.indexOf('\u0000');
  if (nul !== -1) throw new ImportError(displayName, `binary content (NUL character at offset ${nul}): expected UTF-8 JSON or JSONL text`);
  if (!/\S/.test(text)) throw new ImportError(displayName, 'the file is empty: expected a JSON document or JSONL records');
  const bytes = Buffer.from(text, 'utf8');
  return { hash: crypto.createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
}

export interface Line {
  /** 1-based line number. */
  line: number;
  text: string;
}

/**
 * Offset of the first byte that is not part of a well-formed UTF-8 sequence, or -1.
 * (Overlong forms, surrogates and code points above U+10FFFF count as malformed, as in
 * TextDecoder's fatal mode.)
 */
export function firstInvalidUtf8(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + need >= end) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** The ImportError for bytes that are not UTF-8: file, line, column and the byte, with what to do. */
function notUtf8(displayName: string, line: number, column: number, byte: number): ImportError {
  return new ImportError(
    displayName,
    `not valid UTF-8 (byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} at column ${column}; the file looks like Latin-1 / Windows-1252 or another legacy encoding): expected UTF-8 text; convert it first, e.g. iconv -f WINDOWS-1252 -t UTF-8`,
    line,
  );
}

/** Decodes one line's bytes, failing on anything that is not UTF-8 instead of importing U+FFFD. */
function decodeLine(bytes: Buffer, start: number, end: number, displayName: string, line: number): string {
  const text = bytes.toString('utf8', start, end);
  // The decoder substitutes U+FFFD for bad bytes: only then is the line checked byte by byte
  // (a real U+FFFD in the file is valid UTF-8 and passes).
  if (text.includes('\uFFFD')) {
    const bad = firstInvalidUtf8(bytes, start, end);
    // Everything before the first bad byte is valid: its length in characters gives the column.
    if (bad !== -1) throw notUtf8(displayName, line, bytes.toString('utf8', start, bad).length + 1, bytes[bad]);
  }
  return text;
}

function tooLong(displayName: string, line: number, limit: number): ImportError {
  return new ImportError(displayName, `record longer than the ${formatMb(limit)} per-record limit: expected one JSON record per line of at most ${formatMb(limit)}`, line);
}

/** The lines of a file, streamed in 1 MiB chunks. A trailing '\r' is dropped. */
export function* fileLines(filePath: string, displayName: string, maxRecordBytes = DEFAULT_MAX_RECORD_BYTES): Generator<Line> {
  const fd = fs.openSync(filePath, 'r');
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  // Pieces of the current (unfinished) line, copied out of the reusable chunk buffer.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNo = 1;
  let position = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK_BYTES, position);
      if (n === 0) break;
      position += n;
      const chunk = n === CHUNK_BYTES ? buf : buf.subarray(0, n);
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl === -1) break;
        let text: string;
        if (pendingBytes === 0) {
          if (nl - start > maxRecordBytes) throw tooLong(displayName, lineNo, maxRecordBytes);
          text = decodeLine(chunk, start, nl, displayName, lineNo);
        } else {
          if (pendingBytes + (nl - start) > maxRecordBytes) throw tooLong(displayName, lineNo, maxRecordBytes);
          pending.push(chunk.subarray(start, nl));
          const joined = Buffer.concat(pending);
          text = decodeLine(joined, 0, joined.length, displayName, lineNo);
          pending = [];
          pendingBytes = 0;
        }
        yield { line: lineNo, text: stripCr(lineNo === 1 ? stripBom(text) : text) };
        lineNo++;
        start = nl + 1;
      }
      if (start < n) {
        pendingBytes += n - start;
        if (pendingBytes > maxRecordBytes) throw tooLong(displayName, lineNo, maxRecordBytes);
        pending.push(Buffer.from(chunk.subarray(start, n)));
      }
    }
    if (pendingBytes > 0) {
      const joined = Buffer.concat(pending);
      const text = decodeLine(joined, 0, joined.length, displayName, lineNo);
      yield { line: lineNo, text: stripCr(lineNo === 1 ? stripBom(text) : text) };
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The lines of an in-memory text, without splitting it into an array first. */
export function* textLines(text: string, displayName: string, maxRecordBytes = DEFAULT_MAX_RECORD_BYTES): Generator<Line> {
  let start = 0;
  let lineNo = 1;
  const body = stripBom(text);
  while (start < body.length) {
    let nl = body.indexOf('\n', start);
    if (nl === -1) nl = body.length;
    // Characters, not bytes: UTF-16 length is a cheap bound close enough for a size limit.
    if (nl - start > maxRecordBytes) throw tooLong(displayName, lineNo, maxRecordBytes);
    yield { line: lineNo, text: stripCr(body.slice(start, nl)) };
    lineNo++;
    start = nl + 1;
  }
}

function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}
function stripCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

/**
 * The deepest nesting of arrays and objects a record may have. JSON.parse takes any depth, but
 * every later step that walks a value recursively (stableJson, the block texts) would overflow
 * the stack on 10,000 levels: such a record is refused when it is read, naming its file and line.
 */
export const MAX_JSON_NESTING = 1_000;

/**
 * The line and column (1-based) where `text` nests deeper than `max`, or null. One scan of the
 * characters, jumping over strings (indexOf: most of a transcript is string); a text no longer
 * than `max` is not scanned.
 */
export function nestingTooDeep(text: string, max: number = MAX_JSON_NESTING): { line: number; column: number } | null {
  if (text.length <= max) return null;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: jump to its closing quote (one not escaped by an odd run of backslashes).
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return null; // not valid JSON: JSON.parse said so first
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) {
        const lineStart = text.lastIndexOf('\n', i) + 1;
        let line = 1;
        for (let n = text.indexOf('\n'); n !== -1 && n < i; n = text.indexOf('\n', n + 1)) line++;
        return { line, column: i - lineStart + 1 };
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return null;
}

function refuseDeepNesting(text: string, displayName: string, line: number | undefined): void {
  const at = nestingTooDeep(text);
  if (at === null) return;
  const where = line === undefined ? `line ${at.line}, column ${at.column}` : `column ${at.column}`;
  throw new ImportError(displayName, `the JSON nests more than ${MAX_JSON_NESTING.toLocaleString('en-US')} levels of arrays and objects deep (at ${where}): expected a transcript record`, line ?? at.line);
}

export interface JsonlRecord {
  line: number;
  value: unknown;
}

/** Parses each non-blank line as JSON; a line that is not JSON is an ImportError naming the line. */
export function* jsonlRecords(lines: Iterable<Line>, displayName: string): Generator<JsonlRecord> {
  for (const { line, text } of lines) {
    if (text.length === 0 || !/\S/.test(text)) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new ImportError(displayName, `not valid JSON (${jsonErrorReason(e as Error, text)}): expected one JSON object per line`, line);
    }
    refuseDeepNesting(text, displayName, line);
    yield { line, value };
  }
}

/** Reads a whole-document file (.json, .traj) with the per-record limit applied to the file. */
export function readDocumentText(filePath: string, displayName: string, size: number, maxRecordBytes = DEFAULT_MAX_RECORD_BYTES): string {
  if (size > maxRecordBytes) {
    throw new ImportError(displayName, `a ${formatMb(size)} JSON document is larger than the ${formatMb(maxRecordBytes)} per-record limit: expected a smaller document, or JSONL (one record per line)`);
  }
  const bytes = fs.readFileSync(filePath);
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD')) {
    const bad = firstInvalidUtf8(bytes);
    if (bad !== -1) {
      const lineStart = bytes.lastIndexOf(0x0a, bad - 1) + 1;
      let line = 1;
      for (let i = bytes.indexOf(0x0a); i !== -1 && i < bad; i = bytes.indexOf(0x0a, i + 1)) line++;
      throw notUtf8(displayName, line, bytes.toString('utf8', lineStart, bad).length + 1, bytes[bad]);
    }
  }
  return stripBom(text);
}

/** JSON.parse with an error that says where and what: truncated input is called out as such. */
export function parseJsonDocument(text: string, displayName: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ImportError(displayName, `not valid JSON (${jsonErrorReason(e as Error, text)}): expected one complete JSON document`);
  }
  refuseDeepNesting(text, displayName, undefined);
  return value;
}

/** "the JSON ends early (truncated)" or "<V8 message> at line L, column C". */
export function jsonErrorReason(e: Error, text: string): string {
  const msg = e.message;
  if (/Unexpected end of JSON input|Unterminated string/i.test(msg)) return 'the JSON ends early, the input looks truncated';
  const m = /at position (\d+)/.exec(msg);
  // V8 quotes the input itself (`Unexpected token 'r', "root:x:0:0"... is not valid JSON`), raw
  // and of any length when short: that quote goes, a short escaped excerpt of our own replaces it.
  const base = escapeControls(
    msg
      .replace(/\s*in JSON at position \d+.*$/s, '')
      .replace(/\s*\(line \d+ column \d+\)$/, '')
      .replace(/, ".*" ?(?:\.\.\.)? is not valid JSON$/s, '')
      .replace(/\s*at position \d+$/, ''),
  );
  if (!m) return `${base} near ${excerpt(text.trimStart(), 24)}`;
  const pos = Number(m[1]);
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `${base} near ${excerpt(text.slice(pos), 24)} at line ${line}, column ${pos - lineStart + 1}`;
}

/** An iterator that can look at its next item without consuming it (format detection). */
export class Peekable<T> implements IterableIterator<T> {
  private buffered: IteratorResult<T> | null = null;
  constructor(private readonly inner: Iterator<T>) {}
  peek(): T | undefined {
    if (!this.buffered) this.buffered = this.inner.next();
    return this.buffered.done ? undefined : this.buffered.value;
  }
  next(): IteratorResult<T> {
    if (this.buffered) {
      const b = this.buffered;
      this.buffered = null;
      return b;
    }
    return this.inner.next();
  }
  /** Closing early (an error while consuming) closes the underlying file too. */
  return(value?: unknown): IteratorResult<T> {
    this.buffered = null;
    this.inner.return?.(value);
    return { done: true, value: undefined as never };
  }
  [Symbol.iterator](): IterableIterator<T> {
    return this;
  }
}
