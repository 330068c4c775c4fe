/**
 * Bad input explains itself instead of crashing, and leaves the store unchanged: JSON nested
 * 10,000 deep, usage counts past the safe-integer range, a FIFO, control characters in a file
 * name, a NUL in a search, a request target that is no URL, a huge body to a small operation,
 * a file: base URL, a closed stdout, the spool of a killed server.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/run.js';
import { importFiles, isImportError } from '../../electron/importers/import.js';
import { startServer, type RunningServer } from '../../electron/server/http-server.js';
import { SPOOL_PREFIX } from '../../electron/server/upload-spool.js';
import { openDatabase } from '../../electron/store/db.js';
import { dbSnapshot } from '../helpers/db-snapshot.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { runCliProcess, startCliProcess } from '../helpers/cli-process.js';
import { tempDb, tempDir, type TempDir } from '../helpers/temp-db.js';

const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('cs-bad-');
});
afterAll(() => tmp.cleanup());

/** A Claude Code transcript whose second record's tool input nests `depth` arrays deep. */
function nestedTranscript(file: string, depth: number): void {
  const user = { type: 'user', uuid: 'u1', sessionId: 's', timestamp: '2024-01-01T00:00:00Z', message: { role: 'user', content: 'hi' } };
  const assistant = { type: 'assistant', uuid: 'u2', parentUuid: 'u1', sessionId: 's', timestamp: '2024-01-01T00:00:01Z', message: { role: 'assistant', id: 'm1', model: 'claude', content: [{ type: 'tool_use', id: 't1', name: 'X', input: { a: '@@' } }] } };
  fs.writeFileSync(file, `${JSON.stringify(user)}\n${JSON.stringify(assistant).replace('"@@"', `${'['.repeat(depth)}${']'.repeat(depth)}`)}\n`);
}

describe('bad input in the importer', () => {
  it('JSON nested 10,000 deep is refused naming the file and line; the store is unchanged; 500 deep imports', () => {
    const t = tempDb('cs-deep-');
    try {
      importFiles(t.db, [TAU]);
      const before = dbSnapshot(t.db);
      const deep = path.join(t.dir, 'deep.jsonl');
      nestedTranscript(deep, 10_000);
      let thrown: unknown = null;
      try {
        importFiles(t.db, [deep]);
      } catch (e) {
        thrown = e;
      }
      expect(isImportError(thrown)).toBe(true);
      expect((thrown as Error).message).toMatch(/^deep\.jsonl, line 2: the JSON nests more than 1,000 levels of arrays and objects deep \(at column \d+\)/);
      expect(dbSnapshot(t.db)).toEqual(before);
      const fine = path.join(t.dir, 'fine.jsonl');
      nestedTranscript(fine, 500);
      expect(importFiles(t.db, [fine]).sessions.map((s) => s.turns)).toEqual([2]);
    } finally {
      t.cleanup();
    }
  });

  it('usage counts past the safe-integer range are kept as NULL instead of failing the import', () => {
    const t = tempDb('cs-usage-');
    try {
      const doc = JSON.parse(fs.readFileSync(TAU, 'utf8')) as { traj?: unknown };
      const file = path.join(t.dir, 'huge-usage.json');
      const messages = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', usage: { prompt_tokens: 1e30, completion_tokens: 5 } },
      ];
      fs.writeFileSync(file, JSON.stringify({ messages }));
      expect(doc).toBeTruthy();
      const report = importFiles(t.db, [file], { format: 'openai' });
      expect(report.sessions).toHaveLength(1);
      const rows = t.db.prepare('SELECT input_tokens, output_tokens FROM model_calls').all();
      expect(rows).toEqual([{ input_tokens: null, output_tokens: 5 }]);
    } finally {
      t.cleanup();
    }
  });

  it('a FIFO is refused at once as not a regular file, naming it (a process: a hang would block a test in-process)', () => {
    const fifo = path.join(tmp.dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const db = path.join(tmp.dir, 'fifo.db');
    const r = runCliProcess(['import', fifo, '--db', db, '--json'], { cwd: tmp.dir, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'import_error', message: `pipe.jsonl: ${fifo} is not a regular file (a pipe, a socket or a device): expected a transcript file` });
    const check = openDatabase(db);
    expect(check.prepare('SELECT COUNT(*) FROM sessions').pluck().get()).toBe(0);
    check.close();
  }, 60_000);
});

describe('bad input at the CLI', { timeout: 120_000 }, () => {
  it('prints a file name with terminal escape sequences escaped, on stderr always and on a terminal stdout', async () => {
    let stderr = '';
    const name = path.join(tmp.dir, 'evil\u001b]0;pwned\u0007\u009b2J.jsonl');
    const code = await runCli(['import', name, '--db', path.join(tmp.dir, 'esc.db')], {
      stdout: { write: () => true, isTTY: true },
      stderr: { write: (s: string) => (stderr += s) },
      env: {},
      cwd: tmp.dir,
    });
    expect(code).toBe(1);
    expect(stderr).toContain('evil\\u001b]0;pwned\\u0007\\u009b2J.jsonl');
    for (const raw of ['\u001b', '\u0007', '\u009b']) expect(stderr).not.toContain(raw);
  });

  it('a reader that closes stdout early ends the CLI quietly (no EPIPE stack trace)', async () => {
    const db = path.join(tmp.dir, 'epipe.db');
    const seed = openDatabase(db);
    importFiles(seed, [TAU]);
    seed.close();
    const p = startCliProcess(['sessions', '--json', '--db', db], { cwd: tmp.dir });
    p.child.stdout!.destroy();
    const code = await p.exited;
    expect(p.output.stderr).not.toContain('EPIPE');
    expect(p.output.stderr).not.toContain('Error');
    expect(code).toBe(0);
  });
});

describe('bad input in browser mode', () => {
  let server: RunningServer;
  let abandoned: string;
  let live: string;
  beforeAll(async () => {
    // A spool a killed server left (its owner gone), and one of a live server (this process).
    abandoned = fs.mkdtempSync(path.join(os.tmpdir(), SPOOL_PREFIX));
    fs.writeFileSync(path.join(abandoned, 'owner.json'), JSON.stringify({ pid: 4_194_000, host: os.hostname(), start: '1' }));
    fs.writeFileSync(path.join(abandoned, 'upload-x.json'), 'transcript text');
    live = fs.mkdtempSync(path.join(os.tmpdir(), SPOOL_PREFIX));
    fs.writeFileSync(path.join(live, 'owner.json'), JSON.stringify({ pid: process.pid, host: os.hostname(), start: (await import('../../electron/store/run-owner.js')).currentOwner().start }));
    server = await startServer({ port: 0, dbPath: path.join(tmp.dir, 'server.db'), rendererDir: tmp.dir, importDemo: false });
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(live, { recursive: true, force: true });
  });

  const api = async (op: string, body: string) => {
    const res = await fetch(`${server.origin}/api/${op}`, { method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body });
    return { status: res.status, envelope: (await res.json()) as { ok: boolean; error?: { code: string; message: string }; value?: unknown } };
  };

  it("removes at start-up the spool folders of servers that are gone, and keeps a live one's", () => {
    expect(fs.existsSync(abandoned)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
  });

  it('answers a request target that is no URL with 400 bad_path', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => socket.write(`GET http://[::1 HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`));
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(answer).toContain('"code":"bad_path"');
  });

  it('a NUL in a search is a word break, not an internal error', async () => {
    const r = await api('search', JSON.stringify({ query: 'flight\u0000change' }));
    expect(r.status).toBe(200);
    expect(r.envelope).toEqual({ ok: true, value: { turns: [], summaries: [] } });
  });

  it('a body over 1 MB to an operation that is not an import is 413, naming the limit', async () => {
    const r = await api('renameVariant', JSON.stringify({ variantId: 1, name: 'x'.repeat(2 * 1024 * 1024) }));
    expect(r.status).toBe(413);
    expect(r.envelope.error).toEqual({ code: 'payload_too_large', message: 'request body larger than 1 MB; the limit of every operation but importText and importTexts' });
  });

  it('refuses a base URL that is not http(s)', async () => {
    for (const baseURL of ['file:///etc/passwd', 'javascript:alert(1)']) {
      const r = await api('setSettings', JSON.stringify({ summarizer: { kind: 'openai', baseURL } }));
      expect(r.envelope.ok, baseURL).toBe(false);
      expect(r.envelope.error).toMatchObject({ code: 'invalid_input' });
      expect(r.envelope.error!.message).toContain('summarizer.baseURL: must be an http(s) URL');
    }
    const ok = await api('setSettings', JSON.stringify({ summarizer: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1' } }));
    expect(ok.envelope.ok).toBe(true);
  });
});
