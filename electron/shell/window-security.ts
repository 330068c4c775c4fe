/**
 * The window's lock-down, in one place: its webPreferences, the session's CSP header and
 * permission handlers, what every webContents may navigate to or open, and the app://
 * protocol's responses. main.ts applies these to the real Electron objects; each takes
 * the Electron API it needs as a parameter (only type imports from 'electron'), so the
 * wiring is tested in Node with a substitute typed against electron.d.ts
 * (test/node/electron-shell.test.ts).
 */
import fs from 'node:fs';
import type { Session, WebContents, WebPreferences } from 'electron';
import { contentTypeFor } from '../server/static-files.js';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../services/csp.js';
import { isTrustedSenderUrl, rendererFileForUrl } from './ipc.js';
import { isExternalHttpUrl } from './external-links.js';

/**
 * The window's webPreferences, minus the per-run `preload` and `additionalArguments`:
 * the page gets no Node (context isolation, sandboxed renderer, no nodeIntegration in the
 * page or its workers), the web's same-origin rules, no <webview>, and a dropped file
 * never replaces the page (navigateOnDragDrop: the drop handler imports it instead).
 */
export const SECURE_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  spellcheck: false,
} as const satisfies WebPreferences;

/**
 * Every response of the app:// protocol carries SECURITY_HEADERS (the CSP among them),
 * a 404 too: a page that is not ours (or a missing file) never arrives without the policy.
 */
export async function serveRendererFile(url: string, rendererDir: string): Promise<Response> {
  const notFound = () => new Response('not found', { status: 404, headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' } });
  const file = rendererFileForUrl(url, rendererDir);
  if (!file) return notFound();
  try {
    const body = await fs.promises.readFile(file);
    return new Response(body, { status: 200, headers: { ...SECURITY_HEADERS, 'Content-Type': contentTypeFor(file) } });
  } catch {
    return notFound();
  }
}

/**
 * The session: the CSP header on every response (also what our protocol handler does not
 * serve), and every permission (camera, geolocation, notifications, clipboard reads, ...)
 * refused, asked or checked. The window uses none of them.
 */
export function lockDownSession(ses: Pick<Session, 'webRequest' | 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>): void {
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
}

/**
 * Every webContents (app 'web-contents-created'): no navigation or redirect away from
 * app://studio/, no new windows, no <webview>. An http(s) link the user follows goes to
 * `openLink` (external-links.ts: the system browser, after asking for a new host).
 */
export function guardWebContents(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>, openLink: (url: string) => void): void {
  contents.on('will-navigate', (event, url) => {
    if (isTrustedSenderUrl(url)) return;
    event.preventDefault();
    if (isExternalHttpUrl(url)) openLink(url);
  });
  contents.on('will-frame-navigate', (event) => {
    if (!isTrustedSenderUrl(event.url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isTrustedSenderUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalHttpUrl(url)) openLink(url);
    return { action: 'deny' };
  });
}
