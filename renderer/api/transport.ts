/**
 * The window's view of the main process: one async function per contract operation
 * (Envelope unwrapped, failures re-thrown as StudioError so React Query sees a normal
 * rejected promise) and a subscription to pushed StudioEvents. Two implementations:
 * the Electron preload (`window.studio`) and HTTP + Server-Sent Events (browser mode).
 */
import { HTTP_API_PREFIX, HTTP_EVENTS_PATH, OPERATIONS, SSE_EVENT_TYPES, StudioError } from '../../shared/contract.js';
import type { Envelope, OperationName, PreloadBridge, StudioApi, StudioEvent } from '../../shared/contract.js';

export type EventListener = (event: StudioEvent) => void;

export interface StudioTransport {
  kind: 'electron' | 'http';
  api: StudioApi;
  /** Subscribes to pushed events; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void;
  /** Electron only: the file path of a dropped or picked File, so main reads it itself. */
  pathForFile?: (file: File) => string;
}

/** Unwraps an Envelope: the value, or a thrown StudioError carrying the code and message. */
export function unwrap<T>(op: string, envelope: Envelope<T> | null | undefined): T {
  if (!envelope || typeof envelope !== 'object' || !('ok' in envelope)) {
    throw new StudioError('bad_response', `${op}: the main process answered with something that is not an envelope`);
  }
  if (envelope.ok) return envelope.value;
  throw new StudioError(envelope.error.code, envelope.error.message);
}

function buildApi(call: (op: OperationName, input: unknown) => Promise<unknown>): StudioApi {
  const api: Partial<Record<OperationName, (input: unknown) => Promise<unknown>>> = {};
  for (const op of OPERATIONS) api[op] = (input) => call(op, input);
  return api as StudioApi;
}

/** The Electron transport: the preload's bridge, one function per operation. */
export function preloadTransport(bridge: PreloadBridge): StudioTransport {
  const call = async (op: OperationName, input: unknown) => {
    const fn = bridge[op] as (input: unknown) => Promise<Envelope<unknown>>;
    return unwrap(op, await fn(input));
  };
  return {
    kind: 'electron',
    api: buildApi(call),
    subscribe: (listener) => bridge.onEvent(listener),
    pathForFile: bridge.pathForFile ? (file) => bridge.pathForFile!(file) : undefined,
  };
}

/**
 * The browser-mode transport: `POST /api/<op>` with the bearer token, events over one
 * shared EventSource (`GET /api/events?token=`, since EventSource cannot set headers).
 */
export function httpTransport(token: string, baseUrl = ''): StudioTransport {
  const call = async (op: OperationName, input: unknown) => {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${HTTP_API_PREFIX}${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(input ?? {}),
      });
    } catch (err) {
      throw new StudioError('unreachable', `${op}: the Compaction Studio server did not answer (${(err as Error).message}). Is \`npm run serve\` still running?`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new StudioError(`http_${response.status}`, `${op}: HTTP ${response.status} ${response.statusText}`);
    }
    if (response.status === 401) throw new StudioError('unauthorized', 'The access token was refused. Open the exact URL printed by `npm run serve` (it carries #token=…).');
    return unwrap(op, body as Envelope<unknown>);
  };

  const listeners = new Set<EventListener>();
  let source: EventSource | null = null;
  const deliver = (raw: string) => {
    let event: StudioEvent;
    try {
      event = JSON.parse(raw) as StudioEvent;
    } catch {
      return; // keep-alive comments or foreign payloads
    }
    if (!event || typeof event !== 'object' || !('type' in event)) return;
    for (const l of listeners) l(event);
  };
  const open = () => {
    source = new EventSource(`${baseUrl}${HTTP_EVENTS_PATH}?token=${encodeURIComponent(token)}`);
    source.onmessage = (e) => deliver(e.data as string);
    // Named SSE `event:` lines are handled too, for a server that sends them.
    for (const type of SSE_EVENT_TYPES) source.addEventListener(type, (e) => deliver((e as MessageEvent).data as string));
  };

  return {
    kind: 'http',
    api: buildApi(call),
    subscribe(listener) {
      listeners.add(listener);
      if (!source) open();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && source) {
          source.close();
          source = null;
        }
      };
    },
  };
}

/**
 * Reads the browser-mode token from `#token=…` once and removes it from the address bar
 * (it stays in memory only, so it does not end up in history or screenshots). Other hash
 * parameters (`session=`) are returned for deep links.
 */
export function takeHashParams(): URLSearchParams {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  if (params.has('token')) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return params;
}

declare global {
  interface Window {
    studio?: PreloadBridge;
  }
}

/** Picks the transport: the preload bridge when present (Electron), HTTP otherwise. */
export function chooseTransport(hash: URLSearchParams): StudioTransport | { error: string } {
  if (window.studio) return preloadTransport(window.studio);
  const token = hash.get('token');
  if (!token) {
    return { error: 'No access token. Open the URL that `npm run serve` printed on its first line (…/#token=…); the token is kept in memory only, so a reload needs that URL again.' };
  }
  return httpTransport(token);
}
