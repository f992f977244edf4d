import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, sep } from 'node:path';
import type { Hono } from 'hono';
import { compress } from 'hono/compress';
import type { WebEnv } from './context.js';

const require = createRequire(import.meta.url);

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ttf': 'font/ttf',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.json': 'application/json',
};

// Playwright's own trace viewer, the build that ships inside playwright-core, so it matches the traces the
// worker records and needs nothing from the internet. Only the files listed at start-up are ever served.
function viewerFiles(): Map<string, string> {
  const root = join(dirname(require.resolve('playwright-core/package.json')), 'lib', 'vite', 'traceViewer');
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (types[extname(entry.name)]) files.set(relative(root, path).split(sep).join('/'), path);
    }
  };
  walk(root);
  return files;
}

/** `<base>/trace-viewer/index.html?trace=<url of a trace.zip>` opens a trace; the zip is fetched by the viewer's service worker. */
export function registerTraceViewer(web: Hono<WebEnv>): void {
  const files = viewerFiles();
  web.get('/trace-viewer/*', compress(), (c) => {
    const name = c.req.path.slice(c.req.path.indexOf('/trace-viewer/') + '/trace-viewer/'.length) || 'index.html';
    const path = files.get(name);
    if (!path) return c.text('Not found', 404);
    return c.body(new Uint8Array(readFileSync(path)), 200, {
      'content-type': types[extname(path)]!,
      // The service worker and the page must see a new playwright-core at once; the hashed assets may stay.
      'cache-control': /\.[A-Za-z0-9_-]{8}\.(js|css)$/.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  });
}
