// The built dashboard (`dist/`, from `vite build`) at `/`, with the single-page-app
// fallback: a path that names no file and looks like a page gets index.html. When the
// dashboard has not been built, `/` says so plainly instead of a bare 404.
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `dist/` of this package, wherever the command was started from. */
export const DEFAULT_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

const TYPES: Record<string, string> = {
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
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.jsonl': 'application/x-ndjson',
  '.gz': 'application/gzip',
};

export function serveStatic(distDir: string | null, req: IncomingMessage, res: ServerResponse, pathname: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    res.end('method not allowed\n');
    return;
  }
  if (distDir === null || !fs.existsSync(path.join(distDir, 'index.html'))) return notBuilt(distDir, res, pathname);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return plain(res, 400, 'bad path\n');
  }
  const root = path.resolve(distDir);
  const file = path.resolve(root, '.' + path.posix.normalize('/' + decoded));
  if (file !== root && !file.startsWith(root + path.sep)) return plain(res, 404, 'not found\n');
  let target = file;
  let stat = statOrNull(target);
  if (stat?.isDirectory()) {
    target = path.join(target, 'index.html');
    stat = statOrNull(target);
  }
  if (stat === null || !stat.isFile()) {
    // SPA fallback: a page route (no file extension) gets the app; a missing asset is a 404
    if (path.extname(decoded) !== '') return plain(res, 404, 'not found\n');
    target = path.join(root, 'index.html');
    stat = statOrNull(target);
    if (stat === null) return notBuilt(distDir, res, pathname);
  }
  const ext = path.extname(target);
  const immutable = target.startsWith(path.join(root, 'assets') + path.sep);
  res.writeHead(200, {
    'content-type': TYPES[ext] ?? 'application/octet-stream',
    'content-length': stat.size,
    // vite names assets by content hash; index.html must always be revalidated
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  fs.createReadStream(target)
    .on('error', () => res.destroy())
    .pipe(res);
}

function notBuilt(distDir: string | null, res: ServerResponse, pathname: string): void {
  if (pathname !== '/' && pathname !== '/index.html') return plain(res, 404, 'not found (the dashboard has not been built)\n');
  const where = distDir === null ? 'Serving the dashboard is turned off (--no-static).' : `No built dashboard in ${escapeHtml(distDir)}.`;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(`<!doctype html>
<meta charset="utf-8">
<title>Context Health relay</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:0 .3em}</style>
<h1>The relay is running, but the dashboard has not been built</h1>
<p>${where} Build it with <code>npm run build</code> (or start everything with
<code>npm start</code>), then reload this page.</p>
<p>The relay itself works: sessions are listed at <a href="/api/sessions"><code>/api/sessions</code></a>,
and its health at <a href="/api/health"><code>/api/health</code></a>. See <code>docs/relay.md</code>.</p>
`);
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch {
    return null;
  }
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
