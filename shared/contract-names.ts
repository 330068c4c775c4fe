/**
 * The names that cross the process boundary: error codes, IPC channels, the HTTP paths
 * and the Server-Sent Event names. Part of the contract and re-exported by
 * shared/contract.ts, which every other file imports them from.
 *
 * Kept in a file of its own with no value imports because the sandboxed preload bundles what
 * it imports and may require nothing but 'electron': importing a value from
 * shared/contract.ts would inline zod (~750 KB) into every window (see
 * electron/shell/preload-args.ts for the same reason).
 */
import type { StudioEvent } from './contract.js';

/**
 * Every `error.code` an Envelope or a thrown StudioError may carry, by who raises it.
 * `http_<status>` (a non-JSON HTTP answer) is the one code with a variable part.
 */
export const ERROR_CODES = [
  // The service (electron/services/dispatch.ts and the operations behind it).
  'invalid_input',
  'unknown_operation',
  'import_error',
  'not_found',
  'busy',
  /** A job (an import) stopped by cancelJob: nothing of it was written. */
  'cancelled',
  'internal',
  // The database file itself (electron/store/db-errors.ts): each message names the file and what to do.
  /** Damaged (the quick check on open, or a read that met the damage). */
  'database_corrupt',
  /** The disk holding it is full: the change was rolled back. */
  'database_full',
  /** It cannot be opened, read or written (a missing folder, no permission, an I/O error). */
  'database_unavailable',
  /** Opened read-only (a read-only file, or one written by a newer version of the app): writes are refused. */
  'database_read_only',
  // The IPC sender check (electron/shell/ipc.ts).
  'forbidden',
  // The browser-mode server's transport failures (electron/server/http-server.ts).
  'unauthorized',
  'forbidden_host',
  'forbidden_origin',
  'method_not_allowed',
  'bad_json',
  'bad_path',
  'payload_too_large',
  // The window's transport itself (renderer/api/transport.ts).
  'bad_response',
  'unreachable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number] | `http_${number}`;

/** True for a code of ERROR_CODES or `http_<status>` (a code read back from a message or a worker). */
export function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code) || /^http_\d+$/.test(code);
}

/** IPC channel prefix: operation `op` is invoked on `studio:<op>`. */
export const IPC_CHANNEL_PREFIX = 'studio:';

/** The IPC channel of one operation; the preload invokes exactly these, ipc.ts handles them. */
export function operationChannel(op: string): string {
  return `${IPC_CHANNEL_PREFIX}${op}`;
}

/** The IPC channel on which main pushes StudioEvents to the window. */
export const EVENT_CHANNEL = 'studio:event';

/**
 * Electron: the preload's `pathForFile` grants main the path of a File the user dropped or
 * picked (sendSync), the only paths `importPaths` accepts (electron/shell/path-grants.ts).
 */
export const PATH_GRANT_CHANNEL = 'studio:grant-path';

/** Browser mode: operation `op` is `POST <HTTP_API_PREFIX><op>`. */
export const HTTP_API_PREFIX = '/api/';
/** Browser mode: the Server-Sent Events stream of StudioEvents (`GET`, token in the query). */
export const HTTP_EVENTS_PATH = '/api/events';

/**
 * The StudioEvent types browser mode streams; the window also listens for each as a
 * named SSE `event:` (the server sends plain `data:` messages). `menu-command` is
 * Electron-only (the native menu) and never sent over SSE.
 */
export const SSE_EVENT_TYPES = ['run-progress', 'run-finished', 'job-progress', 'job-finished', 'sessions-changed', 'notice'] as const satisfies ReadonlyArray<StudioEvent['type']>;
