import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/**
 * Where the external programs are. `scripts/setup.mjs` installs them and records their paths in
 * `.proctor/tools.json`; an environment variable beats the file, the file beats a PATH search.
 */
export interface Tools {
  temporal?: string;
  temporalTestServer?: string;
  chromium?: string;
  postgresBin?: string;
  minio?: string;
  /** The API fuzzer test/api/schemathesis.test.ts runs (pip package `schemathesis`). */
  schemathesis?: string;
}

const envOverrides: Record<keyof Tools, string> = {
  temporal: 'PROCTOR_TEMPORAL_CLI',
  temporalTestServer: 'PROCTOR_TEMPORAL_TEST_SERVER',
  chromium: 'PROCTOR_CHROMIUM_PATH',
  postgresBin: 'PROCTOR_POSTGRES_BIN',
  minio: 'PROCTOR_MINIO',
  schemathesis: 'PROCTOR_SCHEMATHESIS',
};

const pathNames: Partial<Record<keyof Tools, string[]>> = {
  temporal: ['temporal'],
  temporalTestServer: ['temporal-test-server'],
  chromium: ['chromium-headless-shell', 'chromium'],
  minio: ['minio'],
  schemathesis: ['schemathesis'],
};

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

export function loadTools(root = process.cwd(), env: Record<string, string | undefined> = process.env): Tools {
  const file = resolve(root, '.proctor', 'tools.json');
  const recorded: Tools = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Tools) : {};
  const tools: Tools = {};
  for (const key of Object.keys(envOverrides) as (keyof Tools)[]) {
    const fromEnv = env[envOverrides[key]];
    const fromFile = recorded[key];
    tools[key] =
      (fromEnv && existsSync(fromEnv) ? fromEnv : undefined) ??
      (fromFile && existsSync(fromFile) ? fromFile : undefined) ??
      pathNames[key]?.map(findOnPath).find(Boolean);
  }
  return tools;
}
