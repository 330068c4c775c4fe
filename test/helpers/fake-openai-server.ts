/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 (port 0) for the summarizer tests:
 * it speaks POST /v1/chat/completions (non-streaming), records every request (body,
 * headers, arrival time, requests in flight at arrival) and answers as scripted per
 * request: a deterministic short summary, a fixed text, an HTTP error (429 with
 * retry-after, 500...), a hang (never answers), a delay, empty content, a non-JSON
 * body, or an echo of the transcript it was sent.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeReply =
  /** Deterministic short summary derived from the prompt (the default). */
  | { kind: 'summary' }
  | { kind: 'text'; text: string }
  /** An HTTP error; 429 carries retry-after-ms (the client honours it) unless retryAfterMs is null. */
  | { kind: 'status'; status: number; retryAfterMs?: number | null; body?: unknown }
  /** Never answers (until the client gives up or the server closes). */
  | { kind: 'hang' }
  /** Answers `then` (default: summary) after `ms` milliseconds. */
  | { kind: 'delay'; ms: number; then?: FakeReply }
  /** Answers `then` (default: summary) once `until` resolves (a test holds the model while it asks again). */
  | { kind: 'wait'; until: Promise<void>; then?: FakeReply }
  | { kind: 'empty' }
  /** 200 with a body that is not JSON. */
  | { kind: 'garbage'; contentType?: string }
  /** The transcript it was sent, verbatim. */
  | { kind: 'echo' };

export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: ChatBody | null;
  rawBody: string;
  arrivedAt: number;
  /** Requests in flight when this one arrived, itself included. */
  inFlight: number;
  reply: FakeReply['kind'];
}

export interface ChatBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  temperature?: number;
  max_tokens?: number;
}

export type Script = FakeReply[] | ((req: RecordedRequest) => FakeReply);

export interface FakeOpenAiServer {
  /** baseURL for the client: http://127.0.0.1:<port>/v1 */
  baseURL: string;
  requests: RecordedRequest[];
  /** Highest number of requests in flight at once. */
  maxInFlight(): number;
  /** Replies for the next requests in order (then the default), or a function of the request. */
  script(s: Script): void;
  setDefault(reply: FakeReply): void;
  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

/** The text between <transcript> tags of the user message (the whole message if none). */
export function transcriptOf(body: ChatBody | null): string {
  const user = body?.messages.find((m) => m.role === 'user')?.content ?? '';
  const m = /<transcript>\n?([\s\S]*?)\n?<\/transcript>/.exec(user);
  return m ? m[1] : user;
}

/**
 * The deterministic "model" answer: a line naming the transcript's size and hash plus
 * its first words. Short and stable, so tests can assert it exactly.
 */
export function fakeSummaryOf(body: ChatBody | null): string {
  const transcript = transcriptOf(body);
  const hash = crypto.createHash('sha256').update(transcript).digest('hex').slice(0, 12);
  const terse = body?.temperature === 0;
  const words = transcript.replace(/\s+/g, ' ').trim().split(' ').slice(0, terse ? 4 : 8).join(' ');
  return `${terse ? 'Terse summary' : 'Summary'} ${hash}: ${transcript.split('\n').length} lines; begins "${words}".`;
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  const requests: RecordedRequest[] = [];
  let queue: FakeReply[] = [];
  let fn: ((req: RecordedRequest) => FakeReply) | null = null;
  let fallback: FakeReply = { kind: 'summary' };
  let inFlight = 0;
  let maxInFlight = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const hanging = new Set<http.ServerResponse>();

  const nextReply = (req: RecordedRequest): FakeReply => (fn ? fn(req) : (queue.shift() ?? fallback));

  const respond = (res: http.ServerResponse, reply: FakeReply, rec: RecordedRequest, done: () => void): void => {
    const json = (status: number, obj: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(obj));
      done();
    };
    const completion = (content: string) =>
      json(200, {
        id: `chatcmpl-fake-${rec.index}`,
        object: 'chat.completion',
        created: 0,
        model: rec.body?.model ?? 'fake',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: Math.ceil(rec.rawBody.length / 4), completion_tokens: Math.ceil(content.length / 4), total_tokens: Math.ceil((rec.rawBody.length + content.length) / 4) },
      });
    switch (reply.kind) {
      case 'summary':
        return completion(fakeSummaryOf(rec.body));
      case 'text':
        return completion(reply.text);
      case 'empty':
        return completion('');
      case 'echo':
        return completion(transcriptOf(rec.body));
      case 'status': {
        const headers: Record<string, string> = {};
        if (reply.status === 429 && reply.retryAfterMs !== null) {
          headers['retry-after-ms'] = String(reply.retryAfterMs ?? 20);
          headers['retry-after'] = '1';
        }
        return json(reply.status, reply.body ?? { error: { message: `fake ${reply.status}`, type: 'fake_error' } }, headers);
      }
      case 'garbage':
        res.writeHead(200, { 'content-type': reply.contentType ?? 'text/plain' });
        res.end('<html>502 Bad Gateway from a proxy</html>');
        return done();
      case 'hang':
        hanging.add(res);
        res.on('close', () => {
          hanging.delete(res);
          done();
        });
        return;
      case 'delay': {
        const timer = setTimeout(() => respond(res, reply.then ?? { kind: 'summary' }, rec, done), reply.ms);
        res.on('close', () => {
          clearTimeout(timer);
          done();
        });
        return;
      }
      case 'wait': {
        let closed = false;
        res.on('close', () => {
          closed = true;
          done();
        });
        void reply.until.then(() => {
          if (!closed) respond(res, reply.then ?? { kind: 'summary' }, rec, done);
        });
        return;
      }
      default: {
        const _exhaustive: never = reply;
        return _exhaustive;
      }
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      let finished = false;
      const done = () => {
        if (!finished) {
          finished = true;
          inFlight--;
        }
      };
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: ChatBody | null;
      try {
        body = JSON.parse(rawBody) as ChatBody;
      } catch {
        body = null;
      }
      const rec: RecordedRequest = { index: requests.length, method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, rawBody, arrivedAt: Date.now(), inFlight, reply: 'summary' };
      if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) {
        requests.push(rec);
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found' } }));
        return done();
      }
      const reply = nextReply(rec);
      rec.reply = reply.kind;
      requests.push(rec);
      for (const w of [...waiters]) {
        if (requests.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      respond(res, reply, rec, done);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    maxInFlight: () => maxInFlight,
    script(s) {
      if (typeof s === 'function') {
        fn = s;
        queue = [];
      } else {
        fn = null;
        queue = [...s];
      }
    },
    setDefault(reply) {
      fallback = reply;
    },
    waitForRequests(n) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
