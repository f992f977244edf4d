import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Hono } from 'hono';
import { compress } from 'hono/compress';
import type { WebEnv } from './context.js';

const require = createRequire(import.meta.url);

// Read once at start-up: the stylesheet next to this file, htmx from its npm package (never a CDN).
const css = readFileSync(new URL('./assets/app.css', import.meta.url));
const htmx = readFileSync(require.resolve('htmx.org/dist/htmx.min.js'));
// The badge page's Copy buttons; only that page loads it.
const copy = readFileSync(new URL('./assets/copy.js', import.meta.url));
// The Git integration form's boxes per kind; only that form loads it.
const gitKind = readFileSync(new URL('./assets/git-kind.js', import.meta.url));

// The content hash in the name lets browsers keep the files for good and still see a new version at once.
const version = (body: Buffer) => createHash('sha256').update(body).digest('hex').slice(0, 12);

export const assetPath = {
  css: `/assets/app.${version(css)}.css`,
  htmx: `/assets/htmx.${version(htmx)}.min.js`,
  copy: `/assets/copy.${version(copy)}.js`,
  gitKind: `/assets/git-kind.${version(gitKind)}.js`,
};

export function registerAssets(web: Hono<WebEnv>): void {
  const serve = (body: Buffer, type: string) => () =>
    new Response(new Uint8Array(body), {
      headers: { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' },
    });
  web.get(assetPath.css, compress(), serve(css, 'text/css; charset=utf-8'));
  web.get(assetPath.htmx, compress(), serve(htmx, 'text/javascript; charset=utf-8'));
  web.get(assetPath.copy, compress(), serve(copy, 'text/javascript; charset=utf-8'));
  web.get(assetPath.gitKind, compress(), serve(gitKind, 'text/javascript; charset=utf-8'));
}
