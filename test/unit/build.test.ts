import { describe, expect, it } from 'vitest';
import { packagesOutside, requiredByName } from '../../scripts/build.js';

// The image installs production dependencies only (`npm install --omit=dev`), and the built CLI imports its npm
// packages at run time: scripts/build.ts refuses a bundle that names a package outside `dependencies`, which would
// pass the test suite (all packages installed) and fail in production. The global setup's build runs this check on
// the real bundle; these cases pin down how names are read.
describe('the build refuses packages the image does not install', () => {
  const dependencies = ['hono', '@temporalio/worker', 'htmx.org'];

  it.each([
    ['a dependency and its subpaths', ['hono', 'hono/jsx/jsx-runtime', '@temporalio/worker'], []],
    ["Node's own modules, with and without node:", ['node:fs', 'fs/promises', 'crypto'], []],
    ['a dev-only package', ['hono', 'fast-check'], ['fast-check']],
    ['a scoped dev-only package, by its scope and name', ['@playwright/test/reporter'], ['@playwright/test']],
    ['each one once, sorted', ['zod', 'esbuild', 'zod/v4'], ['esbuild', 'zod']],
  ])('%s', (_what, specifiers, outside) => {
    expect(packagesOutside(specifiers, dependencies)).toEqual(outside);
  });

  it('reads the packages resolved by name, under the names esbuild gives require in a bundle', () => {
    const source = [
      'const require2 = createRequire(import.meta.url);',
      'const htmx = readFileSync(require2.resolve("htmx.org/dist/htmx.min.js"));',
      "const version = require3('axe-core/package.json').version;",
      "const local = require('./assets/copy.js');",
      'const text = "required(ok)";',
    ].join('\n');
    expect(requiredByName(source)).toEqual(['htmx.org/dist/htmx.min.js', 'axe-core/package.json']);
  });
});
