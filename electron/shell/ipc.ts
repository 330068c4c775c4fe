/**
 * The Electron transport of the contract: one `ipcMain.handle(operationChannel(op))` per
 * operation, each checking WHO is asking before the service validates WHAT is asked.
 *
 * The window is served from our own privileged scheme (`app://studio/`, see main.ts),
 * never from file:// or http(s)://, so a frame's URL tells us whether it is our
 * window. The pure checks live here, separate from Electron, so Vitest can test them.
 * Only type imports from 'electron': this file must load without the Electron binary.
 */
import path from 'node:path';
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { EVENT_CHANNEL, OPERATIONS, operationChannel, type Envelope, type StudioEvent } from '../../shared/contract.js';

/** The scheme and host the window is loaded from. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'studio';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The window's entry page. */
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;


/**
 * True when a sender frame URL belongs to our window: scheme `app:`, host `studio`,
 * no credentials, no port. Everything else (file://, https://, a lookalike host such as
 * `app://studio.evil`, `about:blank`, an unparsable string) is refused.
 */
export function isTrustedSenderUrl(url: string | null | undefined): boolean {
  if (!url) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === `${APP_SCHEME}:` && parsed.hostname === APP_HOST && parsed.port === '' && parsed.username === '' && parsed.password === '';
}

/**
 * Maps an `app://studio/...` request to a file inside the built renderer folder, or null
 * when the URL is not ours or would escape the folder (`..`, encoded or not).
 */
export function rendererFileForUrl(url: string, rendererDir: string): string | null {
  if (!isTrustedSenderUrl(url)) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  if (pathname.includes('\0')) return null;
  const root = path.resolve(rendererDir);
  const relative = pathname === '/' || pathname === '' ? 'index.html' : pathname.replace(/^\/+/, '');
  const file = path.resolve(root, relative);
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

/** What the IPC layer needs from an invoke event: which frame and which window sent it. */
export interface SenderInfo {
  frameUrl: string | null | undefined;
  /** The main frame of the sender, i.e. not a subframe (iframes never get the API). */
  isMainFrame: boolean;
  webContentsId: number;
}

/**
 * The full sender check: our URL, the main frame, and a webContents we created.
 * Returns the reason when refused (logged; the caller gets a generic error).
 */
export function checkSender(sender: SenderInfo, trustedWebContentsIds: ReadonlySet<number>): { ok: true } | { ok: false; reason: string } {
  if (!trustedWebContentsIds.has(sender.webContentsId)) return { ok: false, reason: `webContents ${sender.webContentsId} is not a Compaction Studio window` };
  if (!sender.isMainFrame) return { ok: false, reason: 'a subframe may not call the API' };
  if (!isTrustedSenderUrl(sender.frameUrl)) return { ok: false, reason: `sender URL ${String(sender.frameUrl)} is not ${APP_ORIGIN}` };
  return { ok: true };
}

/** Who sent an IPC message (invoke or send): its frame's URL, whether that is the main frame, its webContents. */
export function senderInfo(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>): SenderInfo {
  const frame = event.senderFrame;
  return { frameUrl: frame?.url, isMainFrame: frame !== null && frame.parent === null, webContentsId: event.sender.id };
}

/**
 * Registers one handler per operation. `dispatch` is the service's (validates with zod
 * and never throws); a refused sender gets an envelope too, never the service.
 */
export function registerIpcHandlers(
  ipcMain: IpcMain,
  dispatch: (op: string, raw: unknown) => Promise<Envelope<unknown>>,
  trustedWebContentsIds: ReadonlySet<number>,
  log: (message: string) => void = (m) => console.warn(m),
): () => void {
  for (const op of OPERATIONS) {
    ipcMain.handle(operationChannel(op), async (event, raw: unknown) => {
      const verdict = checkSender(senderInfo(event), trustedWebContentsIds);
      if (!verdict.ok) {
        log(`refused IPC ${op}: ${verdict.reason}`);
        return { ok: false, error: { code: 'forbidden', message: `${op}: this frame may not call Compaction Studio` } } satisfies Envelope<never>;
      }
      return dispatch(op, raw);
    });
  }
  return () => {
    for (const op of OPERATIONS) ipcMain.removeHandler(operationChannel(op));
  };
}

/** Forwards service events to a window (skipped once it is destroyed). */
export function forwardEvents(subscribe: (listener: (e: StudioEvent) => void) => () => void, send: (channel: string, e: StudioEvent) => void, isAlive: () => boolean): () => void {
  return subscribe((e) => {
    if (isAlive()) send(EVENT_CHANNEL, e);
  });
}
