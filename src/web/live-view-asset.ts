import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import { compress } from 'hono/compress';
import type { WebEnv } from './context.js';

// The live page's one script, next to the stylesheet, named by its content hash like the other assets.
const script = readFileSync(new URL('./assets/live-view.js', import.meta.url));
export const liveViewScriptPath = `/assets/live-view.${createHash('sha256').update(script).digest('hex').slice(0, 12)}.js`;

export function registerLiveViewAsset(web: Hono<WebEnv>): void {
  web.get(
    liveViewScriptPath,
    compress(),
    () =>
      new Response(new Uint8Array(script), {
        headers: {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'public, max-age=31536000, immutable',
        },
      }),
  );
}
