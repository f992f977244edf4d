import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/programs.js';

const root = resolve(import.meta.dirname, '../..');
const setupScript = join(root, 'scripts', 'setup.mjs');
const toolsFile = join(root, '.proctor', 'tools.json');
const readTools = () => readFileSync(toolsFile, 'utf8');

/**
 * A machine as a new user has it: an empty HOME and GOPATH and a PATH holding only Go (the real binary,
 * so `go version` and `go env GOPATH` answer as they would), no MinIO anywhere.
 */
function freshMachine(): { home: string; gopath: string; env: NodeJS.ProcessEnv } {
  const realGo = findOnPath('go');
  if (!realGo) throw new Error('this test needs Go on PATH (the fresh-machine route builds MinIO with it)');
  const base = mkdtempSync(join(tmpdir(), 'proctor-setup-plan-'));
  const home = join(base, 'home');
  const gopath = join(base, 'gopath');
  const bin = join(base, 'bin');
  for (const dir of [home, gopath, bin]) mkdirSync(dir);
  symlinkSync(realGo, join(bin, 'go'));
  dirs.push(base);
  // Only what a fresh shell would carry: no PROCTOR_* overrides, no pyenv, no cached Go module settings.
  const env: NodeJS.ProcessEnv = {
    PATH: bin,
    HOME: home,
    GOPATH: gopath,
    GOCACHE: join(home, '.cache', 'go-build'),
    GOFLAGS: '',
  };
  return { home, gopath, env };
}

function plan(env: NodeJS.ProcessEnv): string[] {
  const result = spawnSync(process.execPath, [setupScript, '--test', '--plan'], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim().split('\n');
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('node scripts/setup.mjs --test --plan', () => {
  it('plans to build MinIO with go install on a machine with Go and no MinIO, and installs nothing', () => {
    const { gopath, env } = freshMachine();
    const before = readTools();

    const lines = plan(env);

    expect(lines).toContain('minio: would run go install github.com/minio/minio@latest');
    expect(lines).toContain('helm: would run go install helm.sh/helm/v3/cmd/helm@v3.22.0');
    // One line per tool, for every tool the test suite needs.
    expect(lines.map((l) => l.split(':')[0])).toEqual([
      'npm packages',
      'temporal',
      'chromium',
      'fonts',
      'jq',
      'temporal-test-server',
      'postgresBin',
      'minio',
      'schemathesis',
      'helm',
      'kubernetes-validate',
    ]);
    // No Python on this PATH: the pip-installed tools say why they cannot be installed rather than pretending.
    expect(lines).toContain(
      'schemathesis: cannot install: schemathesis not found and could not be installed (pip install schemathesis)',
    );
    // Visual checks need the same font on every machine: found, or the apt command; never a silent skip.
    expect(lines.find((l) => l.startsWith('fonts:'))).toMatch(
      /^fonts: (found at \/usr\/share\/fonts\/\S+\/DejaVuSans\.ttf|would run apt-get update -q && apt-get install -y -q --no-install-recommends fonts-dejavu-core|cannot install: DejaVu fonts not found .*fonts-dejavu-core)/,
    );
    expect(readTools()).toBe(before);
    expect(existsSync(join(gopath, 'bin'))).toBe(false);
  });

  it('says where MinIO is once it is in $GOPATH/bin', () => {
    const { gopath, env } = freshMachine();
    const minio = join(gopath, 'bin', 'minio');
    mkdirSync(join(gopath, 'bin'));
    writeFileSync(minio, '#!/bin/sh\necho minio\n');
    chmodSync(minio, 0o755);

    expect(plan(env)).toContain(`minio: found at ${minio}`);
  });

  it('plans the pip installs with the Python on PATH', () => {
    const { env } = freshMachine();
    // The interpreter itself, not a pyenv shim (which needs pyenv on PATH).
    const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
    }).stdout.trim();
    if (!python) throw new Error('this test needs python3');
    env.PATH = [env.PATH, dirname(python)].join(delimiter);
    const line = plan(env).find((l) => l.startsWith('schemathesis:'));
    // Either this Python already has it (found) or the plan names the pip command; never a silent skip.
    expect(line).toMatch(
      /^schemathesis: (found at \S+\/schemathesis|would run python3 -m pip install -q --disable-pip-version-check schemathesis, else .*--user)/,
    );
  });
});
