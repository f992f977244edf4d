import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { DiscoveryStatus, DiscoveryStopReason } from '../../src/domain/discovery-run.js';
import { workflowIds } from '../../workflows/shared.js';
import type { DiscoveryInput, FrontierEntry, VisitOutcome } from '../../workflows/discovery-contract.js';
import {
  recorder,
  until,
  useWorkflowHarness,
  type MockActivities,
  busyUntilCancelled,
} from '../support/workflow-harness.js';

// The discovery workflow on the time-skipping server, its activities replaced by an in-memory site: it visits the
// site breadth first and each URL once (a visit is named in the UI by its path), continues as new with its frontier
// and still visits nothing twice, keeps going past a visit that failed for good, ends FAILED when it cannot begin
// and CANCELLED when cancelled, each time writing the end to the discovery's row.

const h = useWorkflowHarness();
const origin = 'https://shop.test';
const entry = (path: string): FrontierEntry => ({
  url: `${origin}${path}`,
  pattern: path.replace(/\/\d+$/, '/{id}'),
});

/** Home → 6 sections, each with 3 items (2 visited: per pattern); 1 + 6 + 12 = 19 visits. */
const site: Record<string, string[]> = { '/': ['/a', '/b', '/c', '/d', '/e', '/f'] };
for (const s of site['/']!) site[s] = ['/', `${s}/1`, `${s}/2`, `${s}/3`];

function activities(opts: { visit?: (url: string) => Promise<void>; site?: Record<string, string[]> } = {}) {
  const links = opts.site ?? site;
  const visited = new Map<string, number>();
  const mocks = {
    beginDiscovery: recorder(async (_input: { discoveryId: string; projectId: string }) => ({
      start: entry('/'),
      stateKey: null,
    })),
    visitDiscoveryPage: recorder(async (input: { url: string; maxActions: number }): Promise<VisitOutcome> => {
      await opts.visit?.(input.url);
      visited.set(input.url, (visited.get(input.url) ?? 0) + 1);
      const path = input.url.slice(origin.length);
      return {
        url: input.url,
        pattern: entry(path).pattern,
        links: (links[path] ?? []).map(entry),
        actionsUsed: 1,
        visited: true,
      };
    }),
    discoveryVisitedUrls: recorder(async (input: { offset: number; limit: number }) =>
      [...visited.keys()].sort().slice(input.offset, input.offset + input.limit),
    ),
    suggestDiscoveryTests: recorder(async (_input: { discoveryId: string; projectId: string }) => ({
      written: 2,
      calls: 1,
    })),
    finishDiscovery: recorder(
      async (_input: {
        discoveryId: string;
        status: Extract<DiscoveryStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>;
        stopReason: DiscoveryStopReason | null;
        error?: string | null;
      }) => undefined,
    ),
  } satisfies MockActivities;
  return { mocks, visited };
}

const input = (more: Partial<DiscoveryInput> = {}): DiscoveryInput => ({
  discoveryId: 'discovery-1',
  discoveryShortId: h.uniqueId('disc'),
  projectId: 'project-1',
  budget: { pages: 100, actions: 1000, minutes: 30 },
  ...more,
});

const ended = (status: string, stopReason: string | null, error?: string | null) => [
  {
    discoveryId: 'discovery-1',
    projectId: 'project-1',
    status,
    stopReason,
    stateKey: null,
    ...(error !== undefined && { error }),
  },
];

describe('discovery', () => {
  it('visits breadth first, each URL once and two per pattern, each visit named by its path', async () => {
    const { mocks, visited } = activities();
    const i = input();
    const workflowId = workflowIds.discovery(i.discoveryShortId);
    const result = await h.withWorker(mocks, async (q) => (await q.start('discovery', [i], workflowId)).result());

    expect(result).toEqual({ status: 'COMPLETED', stopReason: 'explored', pages: 19, actions: 19, continuations: 0 });
    expect([...visited.values()].every((n) => n === 1)).toBe(true);
    const order = mocks.visitDiscoveryPage.calls.map(([c]) => c.url.slice(origin.length));
    // Breadth first: the home page, then sections (3 at once), each section before its items. The order the worker
    // starts activities in is not the order they were scheduled (a later section may start after an item whose
    // section finished first), so the start order is checked only as far as it is determined.
    expect(order[0]).toBe('/');
    expect(order.slice(1, 4).every((p) => /^\/[a-f]$/.test(p))).toBe(true);
    for (const [at, path] of order.entries())
      if (/\/\d+$/.test(path)) expect(order.indexOf(path.replace(/\/\d+$/, '')), path).toBeLessThan(at);
    expect(order.filter((p) => /\d$/.test(p)).every((p) => /^\/[a-f]\/[12]$/.test(p))).toBe(true);
    expect(order.filter((p) => p.endsWith('/3'))).toEqual([]);
    expect(mocks.finishDiscovery.calls).toEqual([ended('COMPLETED', 'explored')]);
    // Its suggested tests are written once, before it is marked COMPLETED (a client that sees COMPLETED finds them).
    expect(mocks.suggestDiscoveryTests.calls).toEqual([[{ discoveryId: 'discovery-1', projectId: 'project-1' }]]);
    const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
    const summaries = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'visitDiscoveryPage'
        ? [JSON.parse(Buffer.from(e.userMetadata!.summary!.data!).toString('utf8')) as string]
        : [],
    );
    expect(summaries.sort()).toEqual(order.map((p) => `Visit ${p}`).sort());
  });

  it('continues as new with its frontier: the same pages, none visited twice', async () => {
    const { mocks, visited } = activities();
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('discovery', [input({ maxHistoryEvents: 40 })])).result(),
    );
    expect(result.status).toBe('COMPLETED');
    expect(result.continuations).toBeGreaterThanOrEqual(2);
    expect(result.pages).toBe(19);
    expect(visited.size).toBe(19);
    expect([...visited.values()].every((n) => n === 1)).toBe(true);
    expect(mocks.beginDiscovery.calls).toHaveLength(1);
    expect(mocks.discoveryVisitedUrls.calls.length).toBe(result.continuations);
    expect(mocks.finishDiscovery.calls).toEqual([ended('COMPLETED', 'explored')]);
  });

  it('a visit that fails for good is counted and the others go on', async () => {
    const { mocks } = activities({
      visit: async (url) => {
        if (url.endsWith('/b')) throw ApplicationFailure.nonRetryable('the page crashed the browser');
      },
    });
    const result = await h.withWorker(mocks, async (q) => (await q.start('discovery', [input()])).result());
    // /b's items were never linked: 1 + 6 + 10.
    expect(result).toMatchObject({ status: 'COMPLETED', stopReason: 'explored', pages: 17 });
  });

  it('stops at the pages budget and says so', async () => {
    const { mocks } = activities();
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('discovery', [input({ budget: { pages: 5, actions: 1000, minutes: 30 } })])).result(),
    );
    expect(result).toMatchObject({ status: 'COMPLETED', stopReason: 'pages', pages: 5 });
    expect(mocks.finishDiscovery.calls).toEqual([ended('COMPLETED', 'pages')]);
  });

  it('with an intent, the pages it names are visited first, and a budget too small for the site reaches them', async () => {
    const shop = {
      '/': ['/a', '/b', '/c', '/d', '/e', '/checkout'],
      '/a': ['/a/1'],
      '/checkout': ['/checkout/shipping', '/checkout/payment'],
    };
    const { mocks } = activities({ site: shop });
    const result = await h.withWorker(mocks, async (q) =>
      (
        await q.start('discovery', [
          input({ budget: { pages: 5, actions: 1000, minutes: 30 }, intent: 'the checkout', concurrency: 1 }),
        ])
      ).result(),
    );
    expect(result).toMatchObject({ status: 'COMPLETED', stopReason: 'pages', pages: 5 });
    const order = mocks.visitDiscoveryPage.calls.map(([c]) => c.url.slice(origin.length));
    // Breadth first alone, /checkout is the home's sixth link and does not fit in 5 pages; asked for, it is visited
    // first, and its pages take the places of the sections (one visit at a time, so the order is determined).
    expect(order).toEqual(['/', '/checkout', '/checkout/shipping', '/checkout/payment', '/a']);
  });

  it('suggested tests that cannot be written cost the suggestions, not the discovery', async () => {
    const { mocks } = activities();
    mocks.suggestDiscoveryTests = recorder(async (_input: { discoveryId: string; projectId: string }) => {
      throw new Error('the database went away');
    });
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('discovery', [input({ budget: { pages: 3, actions: 1000, minutes: 30 } })])).result(),
    );
    expect(result).toMatchObject({ status: 'COMPLETED', stopReason: 'pages', pages: 3 });
    // Three attempts, then the discovery completes without them.
    expect(mocks.suggestDiscoveryTests.calls).toHaveLength(3);
    expect(mocks.finishDiscovery.calls).toEqual([ended('COMPLETED', 'pages')]);
  });

  it('cannot begin (its row is gone): FAILED with the reason', async () => {
    const { mocks } = activities();
    mocks.beginDiscovery = recorder(async (_input: { discoveryId: string; projectId: string }) => {
      throw ApplicationFailure.nonRetryable('discovery discovery-1 not found', 'NotFound');
    });
    const result = await h.withWorker(mocks, async (q) => (await q.start('discovery', [input()])).result());
    expect(result.status).toBe('FAILED');
    expect(mocks.finishDiscovery.calls).toEqual([ended('FAILED', null, 'discovery discovery-1 not found')]);
    expect(mocks.suggestDiscoveryTests.calls).toEqual([]);
  });

  it('cancelled mid-visit: the visit is cancelled, the discovery ends CANCELLED', async () => {
    let cancelledVisits = 0;
    const { mocks } = activities({
      visit: async (url) => {
        if (url === `${origin}/`) return;
        await busyUntilCancelled(() => cancelledVisits++);
      },
    });
    const result = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('discovery', [input()]);
      await until(() => mocks.visitDiscoveryPage.calls.length >= 4);
      await handle.cancel();
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'CANCELLED', pages: 4 });
    expect(cancelledVisits).toBe(3);
    expect(mocks.finishDiscovery.calls).toEqual([ended('CANCELLED', null, null)]);
    expect(mocks.suggestDiscoveryTests.calls).toEqual([]);
  });
});
