/**
 * Bad input: each case gives one ImportError naming the file, the line (JSONL) and what
 * was expected, and leaves the database exactly as it was (every row of every table,
 * FTS shadow tables included, compared before and after).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../electron/store/db.js';
import { ImportError, importFiles, importText } from '../../electron/importers/import.js';
import { dbSnapshot } from '../helpers/db-snapshot.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const SMALL_CC = path.join(FIXTURES, 'claude-code/claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');
const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');

let tmp: TempDb;
let dir: string;
let db: DB;
let before: Record<string, unknown[]>;

beforeAll(() => {
  tmp = tempDb('cs-bad-input-');
  ({ dir, db } = tmp);
  // A store with real content, so "unchanged" means something.
  importFiles(db, [path.join(FIXTURES, 'claude-code/spotter__tool_heavy.jsonl')]);
  before = dbSnapshot(db);
});
afterAll(() => tmp.cleanup());

function write(name: string, content: string | Buffer): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
}

/** Runs `f`, expects an ImportError, checks the database did not change, returns the error. */
function failing(f: () => unknown): ImportError {
  let error: unknown;
  try {
    f();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ImportError);
  expect(dbSnapshot(db)).toEqual(before);
  return error as ImportError;
}

const ccLines = fs.readFileSync(SMALL_CC, 'utf8').split('\n').filter((l) => l.length > 0);

describe('bad input leaves the database unchanged', () => {
  it('rejects an empty file', () => {
    const e = failing(() => importFiles(db, [write('empty.jsonl', '')]));
    expect(e.message).toBe('empty.jsonl: the file is empty: expected a JSON document or JSONL records');
    expect(e.code).toBe('import_error');
    expect(failing(() => importFiles(db, [write('blank.json', '  \n\n ')])).message).toContain('the file is empty');
  });

  it('rejects truncated JSON, saying it looks truncated', () => {
    const text = fs.readFileSync(TAU, 'utf8');
    const e = failing(() => importFiles(db, [write('cut.json', text.slice(0, 5000))]));
    expect(e.file).toBe('cut.json');
    expect(e.message).toMatch(/^cut\.json: not valid JSON \(the JSON ends early, the input looks truncated\): expected one complete JSON document$/);
  });

  it('points at the line and column of invalid JSON in a document', () => {
    const e = failing(() => importFiles(db, [write('broken.json', '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant" "content": "x"}\n]\n')]));
    expect(e.message).toMatch(/^broken\.json: not valid JSON \(.+ at line 3, column 24\): expected one complete JSON document$/);
  });

  it('names the JSONL line that is not JSON', () => {
    const lines = [...ccLines];
    lines[2] = '{"type":"user","message":{"role":"user","content":"unterminated}';
    const e = failing(() => importFiles(db, [write('bad-line.jsonl', `${lines.join('\n')}\n`)]));
    expect(e.line).toBe(3);
    expect(e.message).toMatch(/^bad-line\.jsonl, line 3: not valid JSON \(.+\): expected one JSON object per line$/);
  });

  it('explains wrong field types with the field path', () => {
    const lines = [...ccLines];
    const rec = JSON.parse(lines[4]) as { message: { content: unknown } };
    rec.message.content = 42;
    lines[4] = JSON.stringify(rec);
    const e = failing(() => importFiles(db, [write('wrong-type.jsonl', lines.join('\n'))]));
    expect(e.message).toBe('wrong-type.jsonl, line 5: expected a Claude Code user record with message.content, but message.content: expected string or array or null, received number');

    const openai = failing(() => importFiles(db, [write('robot.json', JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'robot', content: 'beep' }]))]));
    expect(openai.message).toBe(
      'robot.json: expected an OpenAI chat message ({"role", "content", "tool_calls"?, "tool_call_id"?}) at [1], but role: expected one of "system"|"developer"|"user"|"assistant"|"tool"|"function"',
    );

    const traj = failing(() => importFiles(db, [write('bad.traj', JSON.stringify({ history: 'none' }))]));
    expect(traj.message).toBe('bad.traj: expected a SWE-agent trajectory ({"history": [...]} or {"trajectory": [...]}, "info"?), but history: expected array, received string');
  });

  it('rejects a file of no known format and suggests --format', () => {
    const e = failing(() => importFiles(db, [write('mystery.json', JSON.stringify({ hello: 'world' }))]));
    expect(e.message).toBe('mystery.json: unknown format: the JSON document matches none of claude-code, openai, anthropic, openhands, swe-agent, sharegpt, codex, tau-bench (force one with --format)');
    const jsonl = failing(() => importFiles(db, [write('mystery.jsonl', '{"a":1}\n{"a":2}\n')]));
    expect(jsonl.message).toBe('mystery.jsonl, line 1: unknown format: the first JSONL record matches none of claude-code, openai, anthropic, openhands, swe-agent, sharegpt, codex, tau-bench (force one with --format)');
    const forced = failing(() => importFiles(db, [SMALL_CC], { format: 'gemini' }));
    expect(forced.message).toBe(`${path.basename(SMALL_CC)}: unknown format "gemini": expected one of claude-code, openai, anthropic, openhands, swe-agent, sharegpt, codex, tau-bench`);
  });

  it('rejects a binary file', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    const e = failing(() => importFiles(db, [write('picture.jsonl', png)]));
    expect(e.message).toBe('picture.jsonl: binary file (NUL byte at offset 8): expected UTF-8 JSON or JSONL text');
  });

  it('rejects a 100 MB single line with the per-record limit, without holding it in memory', () => {
    const p = path.join(dir, 'huge.jsonl');
    const fd = fs.openSync(p, 'w');
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    fs.writeSync(fd, '{"role":"user","content":"');
    for (let i = 0; i < 100; i++) fs.writeSync(fd, chunk);
    fs.writeSync(fd, '"}\n');
    fs.closeSync(fd);
    const rssBefore = process.memoryUsage().rss;
    const e = failing(() => importFiles(db, [p]));
    expect(e.message).toBe('huge.jsonl, line 1: record longer than the 64 MB per-record limit: expected one JSON record per line of at most 64 MB');
    // The reader stops at the limit: it never buffers the whole 100 MB line.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * 1024 * 1024);
    // A whole-document file over the limit is refused before it is read.
    fs.renameSync(p, path.join(dir, 'huge.json'));
    expect(failing(() => importFiles(db, [path.join(dir, 'huge.json')])).message).toBe(
      'huge.json: a 100 MB JSON document is larger than the 64 MB per-record limit: expected a smaller document, or JSONL (one record per line)',
    );
    fs.rmSync(path.join(dir, 'huge.json'));
  });

  it('applies a smaller per-record limit when configured', () => {
    const e = failing(() => importFiles(db, [SMALL_CC], { maxRecordBytes: 1024 }));
    expect(e.line).toBeGreaterThan(0);
    expect(e.message).toContain('record longer than the 1 KB per-record limit: expected one JSON record per line of at most 1 KB');
  });

  it('rejects a missing file and a directory', () => {
    const missing = path.join(dir, 'nope.jsonl');
    expect(failing(() => importFiles(db, [missing])).message).toBe(`nope.jsonl: file not found (${missing}): expected a transcript file`);
    // A folder imports the transcripts under it; one with none is an error naming it.
    const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
    expect(failing(() => importFiles(db, [empty])).message).toBe(`${path.basename(empty)}: no transcript files in the folder ${empty}: expected .jsonl, .json or .traj files`);
  });

  it('writes nothing when a later file of the same import is bad', () => {
    const bad = write('late-bad.jsonl', `${ccLines.slice(0, 10).join('\n')}\nnot json\n`);
    const e = failing(() => importFiles(db, [TAU, SMALL_CC, bad]));
    expect(e.message).toMatch(/^late-bad\.jsonl, line 11: not valid JSON/);
  });

  it('writes nothing when line 5,001 of a streamed JSONL file is bad after 5,000 turns went in', () => {
    const lines: string[] = [];
    for (let i = 0; i < 5000; i++) lines.push(JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }));
    lines.push('{"role": "user", "content": 7}');
    const e = failing(() => importFiles(db, [write('stream.jsonl', lines.join('\n'))]));
    expect(e.message).toBe('stream.jsonl, line 5001: expected an OpenAI chat message ({"role", "content", "tool_calls"?, "tool_call_id"?}), but content: expected string or array or null, received number');
  });

  it('gives the same errors for text handed over in memory', () => {
    expect(failing(() => importText(db, 'pasted.jsonl', '   ')).message).toBe('pasted.jsonl: the file is empty: expected a JSON document or JSONL records');
    expect(failing(() => importText(db, 'pasted.json', 'ab\u0000cd')).message).toBe('pasted.json: binary content (NUL character at offset 2): expected UTF-8 JSON or JSONL text');
    expect(failing(() => importText(db, 'pasted.jsonl', '{"role":"user","content":"a"}\n{oops\n')).message).toMatch(/^pasted\.jsonl, line 2: not valid JSON/);
    expect(failing(() => importText(db, 'pasted.json', '{"messages": [')).message).toContain('the input looks truncated');
  });
});

describe('input that is not UTF-8', () => {
  const latin1 = (s: string) => Buffer.from(s, 'latin1');
  const utf8Line = JSON.stringify({ role: 'user', content: 'hello' });

  it('fails a Latin-1 JSONL file with file:line and the byte, instead of importing U+FFFD', () => {
    // "caf\xe9 na\xefve" on line 2: Latin-1 bytes, not UTF-8.
    const file = write('latin1.jsonl', Buffer.concat([Buffer.from(`${utf8Line}\n`), latin1('{"role":"assistant","content":"caf\xe9 na\xefve"}\n')]));
    const e = failing(() => importFiles(db, [file]));
    expect(e.message).toBe('latin1.jsonl, line 2: not valid UTF-8 (byte 0xE9 at column 35; the file looks like Latin-1 / Windows-1252 or another legacy encoding): expected UTF-8 text; convert it first, e.g. iconv -f WINDOWS-1252 -t UTF-8');
    expect(e.line).toBe(2);
    expect(e.message).not.toContain('\uFFFD');
  });

  it('fails a Latin-1 JSON document with its line, and a line that spans the 1 MiB read chunk', () => {
    const doc = write('latin1.json', latin1('[\n  {"role": "user", "content": "ok"},\n  {"role": "user", "content": "caf\xe9"}\n]\n'));
    expect(failing(() => importFiles(db, [doc])).message).toMatch(/^latin1\.json, line 3: not valid UTF-8 \(byte 0xE9 at column 35;/);
    // The bad byte sits past the first 1 MiB chunk of a long line.
    const long = write('long-latin1.jsonl', Buffer.concat([Buffer.from(`{"role":"user","content":"${'a'.repeat(1024 * 1024 + 10)}`), latin1('\xe9"}\n')]));
    expect(failing(() => importFiles(db, [long])).message).toMatch(/^long-latin1\.jsonl, line 1: not valid UTF-8 \(byte 0xE9 at column 1048613;/);
  });

  it('still imports UTF-8 text that contains a real U+FFFD', () => {
    const file = write('real-fffd.jsonl', `${utf8Line}\n${JSON.stringify({ role: 'assistant', content: 'binary output: \uFFFD\uFFFD' })}\n`);
    const report = importFiles(db, [file]);
    expect(report.sessions).toHaveLength(1);
    before = dbSnapshot(db);
  });
});
