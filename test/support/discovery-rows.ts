// A discovery written as its workflow leaves it, for API tests that need a map without a crawl: the discovery's
// row and one page row per pattern of a map, linked as a site's header links every top page.
import { randomUUID } from 'node:crypto';
import type { DB } from '../../src/db/database.js';
import type { TestResult } from '../../src/db/schema.js';
import type { MapPattern } from '../../src/domain/coverage.js';
import { newShortId } from '../../src/ids.js';

export interface DiscoveryRowInput {
  projectId: string;
  applicationId: string;
  startUrl: string;
  status?: 'RUNNING' | 'COMPLETED' | 'FAILED';
  finishedAt?: Date;
  /** Its pages: one visit per pattern, of the pattern's example. */
  map: readonly MapPattern[];
  /** Links every page has (a header's). */
  nav: readonly string[];
  /** Further links per pattern. */
  links?: Record<string, string[]>;
}

export async function insertDiscoveryRows(db: DB, input: DiscoveryRowInput): Promise<{ id: string; shortId: string }> {
  const id = randomUUID();
  const shortId = newShortId('discovery');
  const status = input.status ?? 'COMPLETED';
  await db
    .insertInto('discoveries')
    .values({
      id,
      short_id: shortId,
      project_id: input.projectId,
      application_id: input.applicationId,
      environment_id: null,
      start_url: input.startUrl,
      status,
      budget: JSON.stringify({ pages: 50, actions: 20, minutes: 10 }),
      workflow_id: `discovery:${shortId}`,
      pages: input.map.length,
      started_at: new Date(),
      finished_at: status === 'RUNNING' ? null : (input.finishedAt ?? new Date()),
      stop_reason: status === 'COMPLETED' ? 'explored' : null,
    })
    .execute();
  const origin = new URL(input.startUrl).origin;
  for (const p of input.map) {
    const url = `${origin}${p.example ?? p.pattern}`;
    const links = [...input.nav, ...(input.links?.[p.pattern] ?? [])].map((l) => `${origin}${l}`);
    await db
      .insertInto('discovery_pages')
      .values({
        id: randomUUID(),
        discovery_id: id,
        url,
        final_url: url,
        pattern: p.pattern,
        status: p.status ?? 200,
        title: p.title ?? '',
        headings: JSON.stringify([]),
        forms: JSON.stringify(p.forms),
        actions: JSON.stringify([]),
        links: JSON.stringify(links),
      })
      .execute();
  }
  return { id, shortId };
}

/** A finished run of one test, at 10:00 UTC on `day`: where the coverage map reads a test's last pass. Its id. */
export async function insertFinishedRun(
  db: DB,
  input: {
    projectId: string;
    applicationId: string;
    testCaseId: string;
    name: string;
    day: string;
    result: TestResult;
  },
): Promise<string> {
  const runId = randomUUID();
  const finished = new Date(`${input.day}T10:00:00.000Z`);
  await db
    .insertInto('runs')
    .values({
      id: runId,
      short_id: newShortId('run'),
      project_id: input.projectId,
      test_plan_id: null,
      status: 'COMPLETED',
      result: input.result,
      created_at: finished,
      finished_at: finished,
    })
    .execute();
  await db
    .insertInto('run_test_cases')
    .values({
      id: randomUUID(),
      run_id: runId,
      test_case_id: input.testCaseId,
      name: input.name,
      application_id: input.applicationId,
      status: 'COMPLETED',
      result: input.result,
      finished_at: finished,
    })
    .execute();
  return runId;
}
