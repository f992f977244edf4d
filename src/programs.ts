import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/**
 * Where the external programs are (Temporal CLI and test server, Chromium, Postgres, MinIO, Helm). `scripts/setup.mjs`
 * installs them and records their paths in `.proctor/tools.json`; an environment variable beats the file, the file
 * beats a PATH search. (Not to be confused with the agent's tools, src/llm/agent-tools.ts.)
 */
export interface Programs {
  temporal?: string;
  temporalTestServer?: string;
  chromium?: string;
  postgresBin?: string;
  minio?: string;
  /** The API fuzzer test/api/schemathesis.test.ts runs (pip package `schemathesis`). */
  schemathesis?: string;
  /** The Helm chart's tests render and lint it (`go install helm.sh/helm/v3/cmd/helm`). */
  helm?: string;
  /** Checks the rendered manifests against the Kubernetes schema, offline (pip package `kubernetes-validate`). */
  kubernetesValidate?: string;
}

const envOverrides: Record<keyof Programs, string> = {
  temporal: 'PROCTOR_TEMPORAL_CLI',
  temporalTestServer: 'PROCTOR_TEMPORAL_TEST_SERVER',
  chromium: 'PROCTOR_CHROMIUM_PATH',
  postgresBin: 'PROCTOR_POSTGRES_BIN',
  minio: 'PROCTOR_MINIO',
  schemathesis: 'PROCTOR_SCHEMATHESIS',
  helm: 'PROCTOR_HELM',
  kubernetesValidate: 'PROCTOR_KUBERNETES_VALIDATE',
};

const pathNames: Partial<Record<keyof Programs, string[]>> = {
  temporal: ['temporal'],
  temporalTestServer: ['temporal-test-server'],
  chromium: ['chromium-headless-shell', 'chromium'],
  minio: ['minio'],
  schemathesis: ['schemathesis'],
  helm: ['helm'],
  kubernetesValidate: ['kubernetes-validate'],
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

export function loadPrograms(root = process.cwd(), env: Record<string, string | undefined> = process.env): Programs {
  const file = resolve(root, '.proctor', 'tools.json');
  const recorded: Programs = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Programs) : {};
  const programs: Programs = {};
  for (const key of Object.keys(envOverrides) as (keyof Programs)[]) {
    const fromEnv = env[envOverrides[key]];
    const fromFile = recorded[key];
    programs[key] =
      (fromEnv && existsSync(fromEnv) ? fromEnv : undefined) ??
      (fromFile && existsSync(fromFile) ? fromFile : undefined) ??
      pathNames[key]?.map(findOnPath).find(Boolean);
  }
  return programs;
}
