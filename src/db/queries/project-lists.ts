import type { DB } from '../database.js';
import { NotifiedCache } from '../notified-cache.js';

interface Listed {
  projectId: string;
  json: string;
}

/** A `T` as JSON text: a cached list is serialised once, not on every answer. */
export type JsonText<T> = string & { readonly __json?: T };

// The lists clients and dashboards page through over and over (`GET /v1/test-cases`, `GET /v1/applications`),
// answered from memory. What they show is kept exact the way ended runs are (src/db/queries/runs.ts): the
// triggers of migration 0014 notify the project on commit whenever a listed column of a test case, an
// application, or the short id of an application's default environment or preset changes, from any process;
// a write through this process's handle drops the lists at once (`tables`), and so does the end of any
// request that may have written (`forgetProjectLists`, in src/api/app.ts), which also covers a list read
// between a write inside a transaction and its commit. Only while the feed listens, as for runs.
const lists = new NotifiedCache<Listed>({
  channel: 'proctor_catalogue_changes',
  tables: ['test_cases', 'applications', 'environments', 'device_presets'],
  max: 5_000,
  // Counted in characters of JSON (a page of 1,000 test cases is ~350 kB): at most ~32 MB held.
  size: { maxSize: 32 * 1024 * 1024, sizeOf: (listed) => listed.json.length },
  // A payload without a project (a version this one does not know) drops every list.
  stale: (change, listed) => typeof change.projectId !== 'string' || change.projectId === listed.projectId,
});

/**
 * One of a project's lists, cached under `key` (which must name everything the list was filtered and paged
 * by). `load` may throw (an unknown application is a 404): nothing is cached then.
 */
export async function readProjectList<T extends object>(
  db: DB,
  projectId: string,
  key: string,
  load: () => Promise<T>,
): Promise<JsonText<T>> {
  const listed = await lists.read(db, `${projectId} ${key}`, async () => ({
    projectId,
    json: JSON.stringify(await load()),
  }));
  return listed!.json;
}

/** After a request that may have written the project's test cases or applications: its next list must show it. */
export const forgetProjectLists = (projectId: string): void => lists.forget({ projectId });
