/**
 * The one Content-Security-Policy of the window, sent by the Electron shell (response
 * header on app:// and a meta fallback) and by the browser-mode server.
 *
 * Scripts: only our own bundle, no eval, no inline. Styles allow 'unsafe-inline'
 * because React Flow and the virtualized list position elements with inline style
 * attributes; styles cannot run code. connect-src 'self' covers the browser mode's
 * fetch to /api and its EventSource; the Electron window talks only through the
 * preload, so it needs no network at all.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Headers sent with every page and asset, in both runtimes. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
