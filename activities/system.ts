import { hostname } from 'node:os';
import type { ActivityDeps } from './deps.js';
import { pingDatabase } from '../src/db/database.js';

export function createSystemActivities(deps: Pick<ActivityDeps, 'db'>) {
  return {
    async checkDatabase(): Promise<{ ok: boolean; workerIdentity: string }> {
      await pingDatabase(deps.db);
      return { ok: true, workerIdentity: `${hostname()}:${process.pid}` };
    },
  };
}
