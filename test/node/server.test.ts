/**
 * Browser mode over real HTTP on 127.0.0.1: the token on every API call, the Host and
 * Origin checks, the body limit, Server-Sent Events of a real compaction run, the built
 * renderer served with the CSP, and the first stdout line of the bundled server.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport, StudioEvent } from '../../shared/contract.js';
import { CONTENT_SECURITY_POLICY } from '../../electron/services/csp.js';
import { startServer, type RunningServer } from '../../electron/server/http-server.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const SMALLEST = path.join(FIXTURES, 'claude-code', 'claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl');

let tmp: TempDir;
let dir: string;
let server: RunningServer;

/** A raw request (fetch would normalize the path and refuse to set Host). */
function request(opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; port?: number }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: opts.port ?? server.port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const api = (op: string, input: unknown, token: string | null = server.token) =>
  request({ method: 'POST', path: `/api/${op}`, headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) }, body: JSON.stringify(input) });

beforeAll(async () => {
  tmp = tempDir('studio-server-');
  dir = tmp.dir;
  const rendererDir = path.join(dir, 'renderer');
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Compaction Studio</title><script type="module" src="./assets/app.js"></script>');
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log("window");');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'outside the renderer folder');
  server = await startServer({ port: 0, dbPath: tmp.dbPath, rendererDir, importDemo: false });
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('the API token', () => {
  it('refuses a request without a token with 401', async () => {
    const res = await api('listSessions', {}, null);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: { code: 'unauthorized', message: 'missing or wrong token: send Authorization: Bearer <token> (the token the server printed)' } });
  });

  it('refuses a wrong token of the same or another length with 401', async () => {
    const sameLength = server.token.replace(/./g, (c) => (c === 'a' ? 'b' : 'a'));
    expect((await api('listSessions', {}, sameLength)).status).toBe(401);
    expect((await api('listSessions', {}, 'short')).status).toBe(401);
    expect((await api('listSessions', {}, `${server.token}x`)).status).toBe(401);
  });

  it('answers the right token with the envelope', async () => {
    const res = await api('listSessions', {});
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(res.body)).toEqual({ ok: true, value: [] });
  });

  it('uses a fresh random token for every start, in the printed URL', () => {
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#token=${server.token}`);
  });

  it('carries operation failures as 200 envelopes and transport failures as HTTP errors', async () => {
    expect(JSON.parse((await api('getSession', { sessionId: 'one' })).body)).toEqual({ ok: false, error: { code: 'invalid_input', message: 'invalid input for getSession: sessionId: expected number, received string' } });
    expect(JSON.parse((await api('formatDisk', {})).body)).toEqual({ ok: false, error: { code: 'unknown_operation', message: 'unknown operation: formatDisk' } });
    const badJson = await request({ method: 'POST', path: '/api/listSessions', headers: { authorization: `Bearer ${server.token}` }, body: '{nope' });
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.body).error.code).toBe('bad_json');
    const get = await request({ path: '/api/listSessions', headers: { authorization: `Bearer ${server.token}` } });
    expect([get.status, get.headers.allow]).toEqual([405, 'POST']);
  });
});

describe('where the server listens and whom it answers', () => {
  it('is bound to 127.0.0.1 only', async () => {
    expect(server.origin).toBe(`http://127.0.0.1:${server.port}`);
    const lan = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    // Through every non-loopback address of this machine (when it has one) the port is closed.
    const reachable = await new Promise<boolean>((resolve) => {
      if (!lan) return resolve(false);
      const socket = net.connect({ host: lan.address, port: server.port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    expect(reachable).toBe(false);
  });

  it('refuses a foreign Host header (DNS rebinding) and a foreign Origin', async () => {
    const rebinding = await request({ method: 'POST', path: '/api/listSessions', headers: { host: `evil.example:${server.port}`, authorization: `Bearer ${server.token}` }, body: '{}' });
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.body).error.code).toBe('forbidden_host');
    const page = await request({ path: '/', headers: { host: 'evil.example' } });
    expect(page.status).toBe(403);
    const origin = await request({ method: 'POST', path: '/api/listSessions', headers: { origin: 'https://evil.example', authorization: `Bearer ${server.token}` }, body: '{}' });
    expect([origin.status, JSON.parse(origin.body).error.code]).toEqual([403, 'forbidden_origin']);
    const localhost = await request({ method: 'POST', path: '/api/listSessions', headers: { host: `localhost:${server.port}`, origin: `http://localhost:${server.port}`, authorization: `Bearer ${server.token}` }, body: '{}' });
    expect(localhost.status).toBe(200);
  });

  it('answers a body over the limit with 413', async () => {
    const small = await startServer({ port: 0, dbPath: path.join(dir, 'small.db'), rendererDir: dir, importDemo: false, maxBodyBytes: 64 * 1024 });
    try {
      const body = JSON.stringify({ fileName: 'big.jsonl', text: 'x'.repeat(100 * 1024) });
      const res = await request({ port: small.port, method: 'POST', path: '/api/importText', headers: { authorization: `Bearer ${small.token}`, 'content-type': 'application/json' }, body });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({ ok: false, error: { code: 'payload_too_large', message: 'request body larger than 64 KB; import a file this large from the command line (compaction-studio import FILE --db …)' } });
    } finally {
      await small.close();
    }
  });
});

describe('local paths and bad requests', () => {
  it('refuses importPaths: browser mode imports uploaded content only and never reads a local path', async () => {
    const passwd = fs.existsSync('/etc/passwd') ? fs.readFileSync('/etc/passwd', 'utf8') : '';
    for (const paths of [['/etc/passwd'], [SMALLEST]]) {
      const res = await api('importPaths', { paths });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toEqual({ ok: false, error: { code: 'forbidden', message: 'importPaths is not available in browser mode: it imports uploaded content only (importText / importTexts); import files by path from the desktop app or the command line' } });
      if (passwd) expect(res.body).not.toContain(passwd.split('\n')[0].slice(0, 10));
    }
    // Percent-encoded, the operation is still importPaths.
    const encoded = await request({ method: 'POST', path: '/api/import%50aths', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ paths: ['/etc/passwd'] }) });
    expect([encoded.status, JSON.parse(encoded.body).error.code]).toEqual([403, 'forbidden']);
    const sessions = JSON.parse((await api('listSessions', {})).body) as { value: Array<{ title: string }> };
    expect(JSON.stringify(sessions)).not.toContain('root:');
  });

  it('quotes at most a short, escaped excerpt of uploaded text that is not JSON', async () => {
    const text = `root:x:0:0:root:/root:/bin/bash\u0007\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n${'secret-line '.repeat(50)}`;
    const res = await api('importText', { fileName: 'passwd.json', text });
    const error = (JSON.parse(res.body) as { ok: false; error: { code: string; message: string } }).error;
    expect(error.code).toBe('import_error');
    expect(error.message).toMatch(/^passwd\.json: not valid JSON \(Unexpected token 'r' near "root:x:0:0:root:\/root:\/b"… at line 1, column 1\)|^passwd\.json: not valid JSON \(Unexpected token 'r' near "root:x:0:0:root:\/root:\/b"…\)/);
    expect(error.message).not.toContain('daemon');
    expect(error.message).not.toContain('secret-line');
    expect(error.message.length).toBeLessThan(200);
    // A control character in the quoted part comes back escaped, never raw.
    const bell = JSON.parse((await api('importText', { fileName: 'bell.json', text: '[1, 2, \u0007 abc]' })).body) as { error: { message: string } };
    expect(bell.error.message).toContain('\\u0007');
    expect(bell.error.message).not.toContain('\u0007');
  });

  it('answers a bad percent-encoding in an API path with 400, not 500', async () => {
    for (const bad of ['/api/list%E0Sessions', '/api/%', '/api/listSessions%zz']) {
      const res = await request({ method: 'POST', path: bad, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe('bad_path');
    }
  });
});

describe('the built window', () => {
  it('is served with the strict CSP on every file', async () => {
    const index = await request({ path: '/' });
    expect(index.status).toBe(200);
    expect(index.body).toContain('<title>Compaction Studio</title>');
    expect(index.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    const script = await request({ path: '/assets/app.js' });
    expect([script.status, script.headers['content-type'], script.headers['content-security-policy']]).toEqual([200, 'text/javascript; charset=utf-8', CONTENT_SECURITY_POLICY]);
  });

  it('never serves a file outside the renderer folder', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt']) {
      const res = await request({ path: p });
      expect(res.status, p).toBe(404);
      expect(res.body).not.toContain('outside the renderer folder');
    }
  });
});

describe('Server-Sent Events', () => {
  it('refuses the event stream without the token', async () => {
    expect((await request({ path: '/api/events' })).status).toBe(401);
    expect((await request({ path: '/api/events?token=wrong' })).status).toBe(401);
  });

  it('streams the progress and the completion of a real compaction run', async () => {
    const imported = JSON.parse((await api('importText', { fileName: path.basename(SMALLEST), text: fs.readFileSync(SMALLEST, 'utf8') })).body) as { ok: true; value: ImportReport };
    const sessionId = imported.value.sessions[0].id;

    const received: StudioEvent[] = [];
    let stream: http.IncomingMessage | null = null;
    let connected: () => void = () => undefined;
    const streamOpen = new Promise<void>((resolve) => (connected = resolve));
    const runFinished = new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: server.port, path: `/api/events?token=${encodeURIComponent(server.token)}` }, (res) => {
        stream = res;
        expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          connected(); // the server's ': connected' comment: we are subscribed
          buffer += chunk.toString('utf8');
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of frame.split('\n')) {
              if (!line.startsWith('data: ')) continue;
              const event = JSON.parse(line.slice(6)) as StudioEvent;
              received.push(event);
              if (event.type === 'run-finished') resolve();
            }
          }
        });
      });
      req.on('error', reject);
    });
    await streamOpen;
    const started = JSON.parse((await api('startCompaction', { sessionId, strategy: 'dag', params: { freshTailCount: 2, leafChunkTokens: 500 }, force: true })).body) as { ok: true; value: { runId: number; variantId: number } };
    expect(started.ok).toBe(true);
    await runFinished;
    (stream as http.IncomingMessage | null)?.destroy();

    const { runId, variantId } = started.value;
    const progress = received.filter((e) => e.type === 'run-progress');
    const finished = received.filter((e) => e.type === 'run-finished');
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.every((e) => e.type === 'run-progress' && e.runId === runId && e.variantId === variantId)).toBe(true);
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ type: 'run-finished', runId, variantId, status: 'completed', error: null });
    const runs = JSON.parse((await api('listRuns', { variantId })).body) as { ok: true; value: Array<{ status: string; stats: unknown }> };
    expect(runs.value.map((r) => r.status)).toEqual(['completed']);
    expect(runs.value[0].stats).toEqual(finished[0].type === 'run-finished' ? finished[0].stats : null);
  });
});

function newestSource(dirs: string[]): number {
  let newest = 0;
  const stack = [...dirs];
  while (stack.length > 0) {
    const d = stack.pop()!;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (p.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  }
  return newest;
}

describe('npm run serve', () => {
  let child: ChildProcess | null = null;
  beforeAll(() => {
    // `npm test` builds first; run alone, rebuild the bundles when a source is newer
    // (rebuilding unconditionally could rewrite dist/ under another test reading it).
    const bundles = ['serve.cjs', 'pass-worker.cjs'].map((f) => path.join(ROOT, 'dist', 'electron', f));
    const oldestBundle = Math.min(...bundles.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
    if (newestSource([path.join(ROOT, 'electron'), path.join(ROOT, 'shared')]) > oldestBundle) {
      const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs'), '--no-renderer'], { cwd: ROOT, encoding: 'utf8' });
      expect(build.status, build.stderr).toBe(0);
    }
  });
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('prints the URL with a token as its first stdout line, and that token works', async () => {
    child = spawn(process.execPath, [path.join(ROOT, 'dist', 'electron', 'serve.cjs'), '--port', '0', '--db', path.join(dir, 'serve.db'), '--no-demo'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const firstLine = await new Promise<string>((resolve, reject) => {
      const lines = readline.createInterface({ input: child!.stdout! });
      lines.once('line', resolve);
      child!.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const match = /^Compaction Studio at http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]{32})$/.exec(firstLine);
    expect(match, firstLine).not.toBeNull();
    const [, port, token] = match!;
    expect(Number(port)).toBeGreaterThan(0);
    const res = await request({ port: Number(port), method: 'POST', path: '/api/getSettings', headers: { authorization: `Bearer ${token}` }, body: '{}' });
    expect(JSON.parse(res.body)).toEqual({ ok: true, value: { summarizer: { kind: 'extractive' }, hasApiKey: false, concurrency: 4, tokenizer: 'o200k_base', prices: {}, contextWindows: {} } });
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    child = null;
  });
});
