/**
 * Serves the built renderer (dist/renderer/) for browser mode: GET/HEAD only, no
 * directory listings, no path escaping the folder, the window's CSP on every response.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { SECURITY_HEADERS } from '../services/csp.js';

const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Content-Type for a renderer file by extension (also used by Electron's app:// handler). */
export function contentTypeFor(file: string): string {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Shown when dist/renderer has not been built: says what to run instead of a bare 404. */
const NOT_BUILT_PAGE = `<!doctype html><meta charset="utf-8"><title>Compaction Studio</title>
<p>The window has not been built yet. Run <code>npm run build</code> (or <code>npm run serve</code>, which builds first) and reload.</p>`;

export function serveStatic(rendererDir: string, req: http.IncomingMessage, res: http.ServerResponse, pathname: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...SECURITY_HEADERS, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed');
    return;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    res.writeHead(400, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' }).end('bad path');
    return;
  }
  const root = path.resolve(rendererDir);
  const relative = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const file = path.resolve(root, relative);
  // No escaping the renderer folder (../, encoded or not), no NUL tricks.
  if ((file !== root && !file.startsWith(root + path.sep)) || decoded.includes('\0')) {
    res.writeHead(404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
    return;
  }
  let stat: fs.Stats | null;
  try {
    stat = fs.statSync(file);
  } catch {
    stat = null;
  }
  if (!stat || !stat.isFile()) {
    if (relative === 'index.html') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': MIME['.html'], 'Cache-Control': 'no-store' }).end(req.method === 'HEAD' ? undefined : NOT_BUILT_PAGE);
      return;
    }
    res.writeHead(404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
    return;
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': contentTypeFor(file),
    'Content-Length': String(stat.size),
    // Vite fingerprints assets/; index.html must always be re-read after a rebuild.
    'Cache-Control': relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-store',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  fs.createReadStream(file).pipe(res);
}
