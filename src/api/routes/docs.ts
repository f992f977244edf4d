import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Scalar } from '@scalar/hono-api-reference';
import { compress } from 'hono/compress';
import type { OpenApiApp } from '../openapi.js';

const require = createRequire(import.meta.url);

// The API reference page and its script, both from this process: `@scalar/api-reference`'s standalone
// bundle as installed, not the CDN it loads by default, so /docs works on a machine without internet.
const bundle = readFileSync(require.resolve('@scalar/api-reference/browser/standalone.js'));
const bundlePath = `/docs/scalar.${createHash('sha256').update(bundle).digest('hex').slice(0, 12)}.js`;

export function registerDocs(app: OpenApiApp): void {
  app.get(
    '/docs',
    Scalar({
      url: '/v1/openapi.json',
      pageTitle: 'Proctor API reference',
      cdn: bundlePath,
      // By default it loads fonts from fonts.scalar.com, sends telemetry and has its AI agent search an API
      // registry through proxy.scalar.com: none of that belongs on an air-gapped machine (or in our docs).
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
    }),
  );
  app.get(
    bundlePath,
    compress(),
    () =>
      new Response(new Uint8Array(bundle), {
        headers: {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'public, max-age=31536000, immutable',
        },
      }),
  );
}
