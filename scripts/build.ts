// `npm run build`: what the production image runs, in dist/ (or the folder given):
//   proctor.js (+ chunks)  the CLI as one ES module per command, with its source map; npm packages stay imports
//   assets/                the dashboard's CSS and scripts, read beside the code (new URL('./assets/…', import.meta.url))
//   workflows.js           the Temporal workflow bundle, for PROCTOR_WORKFLOW_BUNDLE
// Why: through tsx, a process spent about 4 CPU-s loading our ~500 modules before it did anything, and a worker
// then bundled its workflows with webpack for about 3 CPU-s more, on every start of every container. Built, an API
// process loads in about 2.3 CPU-s and a worker in 1.9, with nothing to bundle (bench/startup.ts).
// The folder must sit inside the project: the bundle imports its npm packages from the node_modules above it.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleWorkflows } from '../src/worker/worker.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The npm package a specifier names (`@scope/name/sub` → `@scope/name`); undefined for Node's own modules. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return undefined;
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/**
 * The packages `specifiers` use that are not production dependencies: the image installs only those
 * (`npm install --omit=dev`), so such an import would pass the test suite and fail in production.
 */
export function packagesOutside(specifiers: Iterable<string>, dependencies: Iterable<string>): string[] {
  const allowed = new Set(dependencies);
  const used = [...specifiers].map(packageOf).filter((p): p is string => p !== undefined);
  return [...new Set(used.filter((p) => !allowed.has(p)))].sort();
}

/**
 * The packages a bundled file resolves at run time by name (createRequire's `require(…)` and `require.resolve(…)`),
 * which esbuild leaves as strings; it names each module's `require` require2, require3… in one scope.
 */
export function requiredByName(source: string): string[] {
  return [...source.matchAll(/\brequire\d*(?:\.resolve)?\(\s*["']([^"'./][^"']*)["']\s*\)/g)].map((m) => m[1]!);
}

/** Bundles the CLI and copies the dashboard's assets into `outDir` (emptied first); returns the CLI's path. */
export async function buildCli(outDir: string): Promise<string> {
  rmSync(outDir, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: { proctor: 'src/cli.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // One chunk per command (src/cli.ts imports each on demand), so `proctor admin` loads no Playwright. The
    // chunks stay beside proctor.js: the code that reads ./assets/ may land in any of them.
    splitting: true,
    chunkNames: '[name]-[hash]',
    outdir: outDir,
    sourcemap: 'linked',
    logLevel: 'warning',
    metafile: true,
  });
  const specifiers = new Set<string>();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    for (const i of output.imports) if (i.external) specifiers.add(i.path);
    if (file.endsWith('.js'))
      for (const name of requiredByName(readFileSync(join(root, file), 'utf8'))) specifiers.add(name);
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: object };
  const outside = packagesOutside(specifiers, Object.keys(pkg.dependencies ?? {}));
  if (outside.length > 0)
    throw new Error(
      `the built CLI imports packages the image does not install (not in dependencies): ${outside.join(', ')}`,
    );
  cpSync(join(root, 'src', 'web', 'assets'), join(outDir, 'assets'), { recursive: true });
  return join(outDir, 'proctor.js');
}

/** The CLI and the workflow bundle, as the image ships them (the test suite runs these same files). */
export async function buildAll(outDir: string): Promise<{ cli: string; workflows: string }> {
  const [cli, bundle] = await Promise.all([buildCli(outDir), bundleWorkflows()]);
  const workflows = join(outDir, 'workflows.js');
  writeFileSync(workflows, bundle.code);
  return { cli, workflows };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? join(root, 'dist'));
  await buildAll(outDir);
  process.stdout.write(`built ${outDir}: proctor.js, assets/, workflows.js\n`);
}
