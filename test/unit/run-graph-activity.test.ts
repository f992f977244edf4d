import { describe, expect, it } from 'vitest';
import { createRunGraphActivities } from '../../activities/run-graph.js';
import type { GraphNode } from '../../src/domain/run-graph.js';
import { BlobNotFoundError } from '../../src/storage/blob-store.js';
import { blobKeys } from '../../workflows/plan-run-contract.js';

// The run graph activity as two worker processes run it over one blob store: the first builds the graph from the
// plan and stores it; any other reads it from the store, never the plan; pages come from one read per worker.

const plan: GraphNode[] = Array.from({ length: 7 }, (_, i) => ({
  testCaseId: `tc-${i}`,
  runTestCaseId: `rtc-${i}`,
  name: `test ${i}`,
  waitFor: i ? [`tc-${i - 1}`] : [],
  resumeFrom: null,
  retries: 1,
}));

function worker(store: Map<string, Buffer>, seen: { planLoads: number; blobReads: number }) {
  return createRunGraphActivities({
    loadRunPlan: async () => (seen.planLoads++, plan),
    blobs: {
      async get(key) {
        seen.blobReads++;
        const body = store.get(key);
        if (!body) throw new BlobNotFoundError(key);
        return body;
      },
      async put(key, body) {
        store.set(key, Buffer.from(body));
      },
    },
  });
}

const pagesOf = async (activity: ReturnType<typeof worker>, size: number) => {
  const pages = [];
  for (let offset = 0; offset < plan.length; offset += size)
    pages.push(await activity.loadRunGraph({ runId: 'run-1', runShortId: 'run_a', offset, limit: size }));
  return pages;
};

describe('the run graph activity', () => {
  it('builds and stores the graph once; another worker reads it from the store, not the plan; one read a worker', async () => {
    const store = new Map<string, Buffer>();
    const first = { planLoads: 0, blobReads: 0 };
    const firstPages = await pagesOf(worker(store, first), 3);
    expect(first).toEqual({ planLoads: 1, blobReads: 1 });
    expect(store.has(blobKeys.runGraph('run_a'))).toBe(true);

    const second = { planLoads: 0, blobReads: 0 };
    const secondPages = await pagesOf(worker(store, second), 3);
    expect(second).toEqual({ planLoads: 0, blobReads: 1 });
    expect(secondPages).toEqual(firstPages);
    expect(firstPages.map((p) => p.testCaseIds.length)).toEqual([3, 3, 1]);
    expect(firstPages.every((p) => p.total === 7)).toBe(true);
  });

  it('a store that fails (not a missing graph) fails the call, rather than building a graph over it', async () => {
    const seen = { planLoads: 0 };
    const activity = createRunGraphActivities({
      loadRunPlan: async () => (seen.planLoads++, plan),
      blobs: { get: async () => Promise.reject(new Error('connect ECONNREFUSED')), put: async () => {} },
    });
    await expect(activity.loadRunGraph({ runId: 'run-1', runShortId: 'run_b', offset: 0, limit: 5 })).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect(seen.planLoads).toBe(0);
  });
});
