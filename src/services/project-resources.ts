// The two reads every resource a project names by short id (applications, configs, device presets, scenarios)
// serves alike: its list, and one of them that must be the caller's project's.
import type { DB } from '../db/database.js';
import { NotFoundError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';

export interface ResourceQueries<V> {
  list(db: DB, projectId: string): Promise<V[]>;
  get(db: DB, projectId: string, shortId: string): Promise<(V & { id: string }) | undefined>;
}

/**
 * `list` gives the project's views; `require` the one with the short id and its row id, or NotFoundError named by
 * `noun` (`'Device preset'` reads "Device preset not found"), also when it belongs to another project.
 */
export function projectResource<V>(noun: string, queries: ResourceQueries<V>) {
  return {
    list: ({ db }: ServiceContext, projectId: string): Promise<V[]> => queries.list(db, projectId),
    require: async ({ db }: ServiceContext, projectId: string, shortId: string): Promise<V & { id: string }> => {
      const found = await queries.get(db, projectId, shortId);
      if (!found) throw new NotFoundError(noun);
      return found;
    },
  };
}
