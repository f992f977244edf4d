// Discovery (issue 34): what one page visit (the `visitDiscoveryPage` activity, real Chromium and Postgres, no
// Temporal) asks the database. A discovery of a thousand pages makes a thousand visits, so a visit's queries must not
// grow with the pages the discovery has stored: one read before the page opens (the discovery, the URL's row if an
// earlier attempt stored it, what earlier visits operated), the environment's access, one statement to store it.
import { randomUUID } from 'node:crypto';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscoveryActivities } from '../../activities/discovery.js';
import { newShortId } from '../../src/ids.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { applicationIdOf } from '../support/recorded.js';
import { startStack, type Stack } from '../support/worker-context.js';

describe('a discovery page visit asks the database the same few queries however many pages are stored', () => {
  let fixture: FixtureApps;
  let stack: Stack;
  let queries = 0;
  let activities: ReturnType<typeof createDiscoveryActivities>;
  let discoveryId: string;

  beforeAll(async () => {
    fixture = await startFixtureApps();
    stack = await startStack({ worker: false });
    const app = (await stack.call('POST', '/v1/applications', { name: 'Back office' })).body.shortId as string;
    const url = `${fixture.url}/d/`;
    expect((await stack.call('POST', `/v1/applications/${app}/environments`, { name: 'Local', url })).status).toBe(201);
    discoveryId = randomUUID();
    const shortId = newShortId('discovery');
    await stack.db
      .insertInto('discoveries')
      .values({
        id: discoveryId,
        short_id: shortId,
        project_id: stack.tenant.projectId,
        application_id: await applicationIdOf(stack.db, app),
        environment_id: null,
        start_url: url,
        status: 'RUNNING',
        budget: JSON.stringify({ pages: 5_000, actions: 1_000, minutes: 60 }),
        workflow_id: `discovery:${shortId}`,
      })
      .execute();
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        queries += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    activities = createDiscoveryActivities({ ...stack.activityDeps, db: stack.db.withPlugin(counting) });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await fixture?.stop();
  });

  const visit = async (path: string) => {
    queries = 0;
    const outcome = await activities.visitDiscoveryPage({
      discoveryId,
      projectId: stack.tenant.projectId,
      url: `${fixture.url}${path}`,
      maxActions: 25,
      stateKey: null,
    });
    return { outcome, queries };
  };

  const operatedOf = async (path: string) =>
    (
      await stack.db
        .selectFrom('discovery_pages')
        .select('operated')
        .where('discovery_id', '=', discoveryId)
        .where('url', '=', `${fixture.url}${path}`)
        .executeTakeFirstOrThrow()
    ).operated as string[];

  it('three queries on the first page and on a page after 500 stored ones; the header is operated once; a retry asks one', async () => {
    const first = await visit('/d/');
    expect(first.outcome.visited).toBe(true);
    const header = await operatedOf('/d/');
    expect(header.length).toBeGreaterThan(0);

    // A long discovery: 500 more rows, as its earlier visits left them (most operated nothing).
    const filler = Array.from({ length: 500 }, (_, i) => ({
      id: randomUUID(),
      discovery_id: discoveryId,
      url: `${fixture.url}/d/elsewhere/${i}`,
      final_url: `${fixture.url}/d/elsewhere/${i}`,
      pattern: '/d/elsewhere/{id}',
      status: 200,
      title: '',
      headings: '[]',
      forms: '[]',
      actions: '[]',
      links: '[]',
      operated: JSON.stringify(i % 100 === 0 ? [`tab|Filler ${i}`] : []),
    }));
    await stack.db.insertInto('discovery_pages').values(filler).execute();

    const later = await visit('/d/orders');
    expect(later.outcome.visited).toBe(true);
    expect({ first: first.queries, later: later.queries }).toEqual({ first: 3, later: 3 });
    // What the first visit operated (the header's menu, its search) is not operated again.
    const again = await operatedOf('/d/orders');
    expect(again.filter((key) => header.includes(key))).toEqual([]);

    const retried = await visit('/d/');
    expect(retried.outcome.visited).toBe(false);
    expect(retried.queries).toBe(1);

    const row = await stack.db
      .selectFrom('discoveries')
      .select(['pages'])
      .where('id', '=', discoveryId)
      .executeTakeFirstOrThrow();
    expect(row.pages).toBe(2);
  }, 120_000);
});
