#!/usr/bin/env node
// A small static server for dist/: what `npm start` serves and what the
// browser tests drive. No dependencies.
//   node scripts/serve.js [--port 8080] [--root dist] [--base /course/week-3/] [--csp "<policy>"] [--cors]
// Files are served under --base (default /); other paths 404. With --csp,
// every response carries that Content-Security-Policy header.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.md': 'text/markdown; charset=utf-8',
};

export function startServer({
  port = 8080,
  root = 'dist',
  base = '/',
  csp = null,
  host = '127.0.0.1',
  headers = {},
} = {}) {
  const rootDir = resolve(root);
  if (!base.startsWith('/')) base = '/' + base;
  if (!base.endsWith('/')) base += '/';
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let path = decodeURIComponent(url.pathname);
    const common = { 'Cache-Control': 'no-cache', ...headers };
    if (csp) common['Content-Security-Policy'] = csp;
    if (path + '/' === base) {
      res.writeHead(301, { ...common, Location: base });
      res.end();
      return;
    }
    if (!path.startsWith(base)) {
      res.writeHead(404, common);
      res.end('not found');
      return;
    }
    let file = normalize(join(rootDir, path.slice(base.length)));
    if (!file.startsWith(rootDir)) {
      res.writeHead(403, common);
      res.end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { ...common, 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, common);
      res.end('not found');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok(server));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const port = Number(opt('port', process.env.PORT || 8080));
  const base = opt('base', '/');
  // --cors: lets a page on another origin load the custom element (see the embedding guide).
  const server = await startServer({
    port,
    root: opt('root', 'dist'),
    base,
    csp: opt('csp', null),
    headers: args.includes('--cors') ? { 'Access-Control-Allow-Origin': '*' } : {},
  });
  console.log(`resnorm: serving ${opt('root', 'dist')}/ at http://localhost:${server.address().port}${base}`);
}
