/**
 * Browser mode: the same StudioService behind node:http, bound to 127.0.0.1 only.
 *
 * Wire protocol (the renderer's HTTP transport speaks exactly this):
 * - `POST /api/<op>` with the operation's input as a JSON body and
 *   `Authorization: Bearer <token>` -> 200 with the Envelope JSON
 *   (`{ok:true,value}` or `{ok:false,error:{code,message}}`); an operation that fails
 *   is still a 200, because the transport worked.
 * - `GET /api/events?token=<token>` -> Server-Sent Events; each event is one
 *   `data: <StudioEvent JSON>` message (EventSource cannot set headers, hence the query).
 * - Transport failures answer with an HTTP error status and the same envelope shape:
 *   401 unauthorized (no or wrong token), 403 forbidden_host / forbidden_origin,
 *   403 forbidden (`importPaths`: browser mode imports uploaded content only, it never
 *   reads a local path named by the caller), 404, 405, 400 bad_json, 400 bad_path (a bad
 *   percent-encoding in the operation name), 413 payload_too_large (one limit,
 *   `maxBodyBytes`, named in the message).
 * - A body over SPOOL_ABOVE_BYTES is streamed to a temp file as it arrives, never held in
 *   memory; an import's file is read, parsed and imported by the worker (task-runner.ts).
 * - Everything else: the built renderer from dist/renderer/, with the window's CSP.
 * The paths (HTTP_API_PREFIX, HTTP_EVENTS_PATH) and error codes are the contract's
 * (shared/contract-names.ts).
 */
import { createSpoolFolder, removeAbandonedSpools } from './upload-spool.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP_API_PREFIX, HTTP_EVENTS_PATH, type Envelope, type ErrorCode, type StudioEvent } from '../../shared/contract.js';
import { defaultCliDatabasePath } from '../store/db.js';
import { SECURITY_HEADERS } from '../services/csp.js';
import { parseJsonBody } from '../services/dispatch.js';
import { memorySecretStore, type SecretStore } from '../services/secrets.js';
import { createStudioService, type StudioService } from '../services/studio-service.js';
import type { WorkerScript } from '../services/compaction-runner.js';
import { serveStatic } from './static-files.js';

/** 200 MB: large enough for a long transcript sent by the file input, small enough to refuse a runaway upload. */
export const DEFAULT_MAX_BODY_BYTES = 200 * 1024 * 1024;
const SSE_KEEPALIVE_MS = 15_000;

// Both this file (electron/server/) and its bundle (dist/electron/) sit two levels below the project root.
const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** SQLite file; defaults to the CLI's default database. */
  dbPath?: string;
  rendererDir?: string;
  resourcesDir?: string;
  secrets?: SecretStore;
  importDemo?: boolean;
  /** The one limit on a request body (default DEFAULT_MAX_BODY_BYTES); a larger one is answered 413 naming it. */
  maxBodyBytes?: number;
  /** Where request bodies over SPOOL_ABOVE_BYTES are streamed (default: a fresh folder under the OS temp dir). */
  uploadDir?: string;
  workerScript?: WorkerScript;
  /** Fixed token (tests); a random one per start otherwise. */
  token?: string;
}

export interface RunningServer {
  /** `http://127.0.0.1:<port>/#token=<token>`: open this in a browser. */
  url: string;
  origin: string;
  port: number;
  token: string;
  service: StudioService;
  close(): Promise<void>;
}

function sendJson(res: http.ServerResponse, status: number, body: Envelope<unknown>): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(json)) });
  res.end(json);
}

function transportError(res: http.ServerResponse, status: number, code: ErrorCode, message: string): void {
  sendJson(res, status, { ok: false, error: { code, message } });
}

/** Constant-time token comparison (the token is the only thing between a web page and the store). */
function tokenMatches(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function bearerToken(req: http.IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match ? match[1] : null;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;
}

/** A request body: small ones in memory, larger ones streamed to a temporary file as they arrive. */
type RequestBody = { kind: 'memory'; text: string } | { kind: 'file'; path: string; bytes: number };

/** The body limit of every operation but the imports (413 names it). */
export const MAX_OPERATION_BODY_BYTES = 1024 * 1024;

/** Bodies up to this size stay in memory; beyond it the body goes to a temp file, chunk by chunk. */
export const SPOOL_ABOVE_BYTES = 1024 * 1024;

/**
 * Receives the body, never holding more than SPOOL_ABOVE_BYTES of it in memory: past that it
 * is written to a temp file in `uploadDir` as it arrives (with backpressure). Over `limit`
 * bytes (declared or counted) it answers 413 naming the limit, deletes what was written and
 * resolves null; also null when the client went away mid-upload.
 */
function receiveBody(req: http.IncomingMessage, res: http.ServerResponse, limit: number, uploadDir: string, isImport: boolean): Promise<RequestBody | null> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const tooLarge = () => {
    res.setHeader('Connection', 'close');
    const advice = isImport ? 'import a file this large from the command line (compaction-studio import FILE --db …)' : 'the limit of every operation but importText and importTexts';
    transportError(res, 413, 'payload_too_large', `request body larger than ${formatBytes(limit)}; ${advice}`);
    // Stop reading the rest of an oversized upload once the answer is out (destroying the
    // socket before could lose the 413 the client is meant to read).
    res.once('finish', () => req.destroy());
  };
  if (Number.isFinite(declared) && declared > limit) {
    tooLarge();
    return Promise.resolve(null);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let spool: { path: string; stream: fs.WriteStream } | null = null;
    const discard = () => {
      if (!spool) return;
      spool.stream.destroy();
      fs.rm(spool.path, { force: true }, () => undefined);
    };
    const giveUp = (answer413: boolean) => {
      settled = true;
      discard();
      if (answer413) tooLarge();
      resolve(null);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) return giveUp(true);
      if (!spool && size <= SPOOL_ABOVE_BYTES) {
        chunks.push(chunk);
        return;
      }
      if (!spool) {
        const file = path.join(uploadDir, `upload-${crypto.randomUUID()}.json`);
        spool = { path: file, stream: fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }) };
        spool.stream.on('error', (err) => {
          if (settled) return;
          settled = true;
          discard();
          reject(err);
        });
        for (const c of chunks.splice(0)) spool.stream.write(c);
      }
      if (!spool.stream.write(chunk)) {
        req.pause();
        spool.stream.once('drain', () => req.resume());
      }
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      if (!spool) return resolve({ kind: 'memory', text: Buffer.concat(chunks).toString('utf8') });
      const { path: file, stream } = spool;
      stream.end(() => resolve({ kind: 'file', path: file, bytes: size }));
    });
    req.on('error', () => {
      if (!settled) giveUp(false);
    });
    // The client went away mid-upload: nobody to answer, drop what was read.
    req.on('close', () => {
      if (!settled) giveUp(false);
    });
  });
}

/**
 * The request guard, before anything is served. DNS-rebinding defence: a page on
 * evil.example resolving to 127.0.0.1 still sends its own Host. Returns the request URL,
 * or null when the request was refused (already answered).
 */
function guardHost(req: http.IncomingMessage, res: http.ServerResponse, port: number): URL | null {
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    transportError(res, 403, 'forbidden_host', `requests must be addressed to 127.0.0.1:${port} or localhost:${port}`);
    return null;
  }
  try {
    return new URL(req.url ?? '/', `http://${host}`);
  } catch {
    // `GET http://[::1 HTTP/1.1`: a request target that is no URL is the client's error, not ours.
    transportError(res, 400, 'bad_path', `the request target ${JSON.stringify((req.url ?? '').slice(0, 80))} is not a valid URL`);
    return null;
  }
}

/** A browser sends Origin on cross-origin requests; only our own page may call the API. False when refused (answered). */
function guardOrigin(req: http.IncomingMessage, res: http.ServerResponse, port: number): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
    transportError(res, 403, 'forbidden_origin', `origin ${origin} may not call this server`);
    return false;
  }
  return true;
}

/** The SSE side: every connected client receives each StudioEvent as one `data:` message. */
interface EventStream {
  /** `GET /api/events?token=`: checks the token and the method, then keeps the response open. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void;
  close(): void;
}

function createEventStream(service: StudioService, token: string): EventStream {
  const clients = new Set<http.ServerResponse>();
  const unsubscribe = service.onEvent((event: StudioEvent) => {
    const frame = `data: ${JSON.stringify(event)}\n\n`;
    for (const client of clients) client.write(frame);
  });
  const keepalive = setInterval(() => {
    for (const client of clients) client.write(': keepalive\n\n');
  }, SSE_KEEPALIVE_MS);
  keepalive.unref();
  return {
    handle(req, res, url) {
      if (!tokenMatches(url.searchParams.get('token') ?? bearerToken(req), token)) {
        transportError(res, 401, 'unauthorized', 'missing or wrong token: open the URL the server printed (it carries #token=...)');
        return;
      }
      if (req.method !== 'GET') {
        res.setHeader('Allow', 'GET');
        transportError(res, 405, 'method_not_allowed', `GET ${HTTP_EVENTS_PATH}`);
        return;
      }
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
      res.write(': connected\n\n');
      clients.add(res);
      req.on('close', () => clients.delete(res));
    },
    close() {
      clearInterval(keepalive);
      unsubscribe();
      for (const client of clients) client.end();
      clients.clear();
    },
  };
}

/** The API side: `POST /api/<op>` with the bearer token and a JSON body, answered with the service's Envelope. */
async function handleApiCall(req: http.IncomingMessage, res: http.ServerResponse, url: URL, service: StudioService, token: string, maxBody: number, uploadDir: string): Promise<void> {
  if (!tokenMatches(bearerToken(req), token)) {
    transportError(res, 401, 'unauthorized', 'missing or wrong token: send Authorization: Bearer <token> (the token the server printed)');
    return;
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    transportError(res, 405, 'method_not_allowed', `use POST ${url.pathname}`);
    return;
  }
  let op: string;
  try {
    op = decodeURIComponent(url.pathname.slice(HTTP_API_PREFIX.length));
  } catch {
    transportError(res, 400, 'bad_path', `the operation name in ${JSON.stringify(url.pathname.slice(0, 80))} is not valid percent-encoding`);
    return;
  }
  if (op === 'importPaths') {
    // A caller holding the token must not make this process read any local file (and echo it in a parse error).
    res.setHeader('Connection', 'close');
    transportError(res, 403, 'forbidden', 'importPaths is not available in browser mode: it imports uploaded content only (importText / importTexts); import files by path from the desktop app or the command line');
    req.resume();
    return;
  }
  // Only an import may send a large body (the worker parses it); any other operation's input is
  // small, and parsing a huge one on this thread would stop every other request meanwhile.
  const isImport = op === 'importText' || op === 'importTexts';
  const body = await receiveBody(req, res, isImport ? maxBody : Math.min(maxBody, MAX_OPERATION_BODY_BYTES), uploadDir, isImport);
  if (body === null) return;
  let answer: { status: number; envelope: Envelope<unknown> };
  try {
    answer = await answerBody(op, body, service);
  } finally {
    // Deleted before the answer goes out: a client that reads it finds nothing left behind.
    if (body.kind === 'file') await fs.promises.rm(body.path, { force: true });
  }
  sendJson(res, answer.status, answer.envelope);
}

async function answerBody(op: string, body: RequestBody, service: StudioService): Promise<{ status: number; envelope: Envelope<unknown> }> {
  if (body.kind === 'file' && (op === 'importText' || op === 'importTexts')) {
    // The worker reads, parses and imports the file: this thread never holds the upload.
    const envelope = await service.importUpload(op, body.path);
    return { status: !envelope.ok && envelope.error.code === 'bad_json' ? 400 : 200, envelope };
  }
  let input: unknown;
  try {
    input = parseJsonBody(body.kind === 'memory' ? body.text : await fs.promises.readFile(body.path, 'utf8'));
  } catch (err) {
    return { status: 400, envelope: { ok: false, error: { code: 'bad_json', message: err instanceof Error ? err.message : String(err) } } };
  }
  return { status: 200, envelope: await service.dispatch(op, input) };
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const token = opts.token ?? crypto.randomBytes(24).toString('base64url');
  const rendererDir = opts.rendererDir ?? path.join(PROJECT_ROOT, 'dist', 'renderer');
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Our own folder (mode 0700) unless the caller names one; removed on close.
  const ownUploadDir = opts.uploadDir === undefined;
  // The spools of servers that were killed (they could not remove theirs) go first.
  if (ownUploadDir) removeAbandonedSpools();
  const uploadDir = opts.uploadDir ?? createSpoolFolder();
  const service = await createStudioService({
    dbPath: opts.dbPath ?? defaultCliDatabasePath(),
    resourcesDir: opts.resourcesDir ?? path.join(PROJECT_ROOT, 'resources'),
    secrets: opts.secrets ?? memorySecretStore(),
    importDemo: opts.importDemo,
    workerScript: opts.workerScript,
  });
  const events = createEventStream(service, token);

  let port = 0;
  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) transportError(res, 500, 'internal', `server error: ${err instanceof Error ? err.message : String(err)}`);
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = guardHost(req, res, port);
    if (!url) return;
    if (!url.pathname.startsWith(HTTP_API_PREFIX)) {
      serveStatic(rendererDir, req, res, url.pathname);
      return;
    }
    if (!guardOrigin(req, res, port)) return;
    if (url.pathname === HTTP_EVENTS_PATH) events.handle(req, res, url);
    else await handleApiCall(req, res, url, service, token, maxBody, uploadDir);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // 127.0.0.1 only: never reachable from another machine.
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  let closed: Promise<void> | null = null;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    port,
    token,
    service,
    close() {
      closed ??= (async () => {
        events.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await service.close();
        if (ownUploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}
