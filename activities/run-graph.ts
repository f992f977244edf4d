import { BlobNotFoundError, type BlobStore } from '../src/storage/blob-store.js';
import { graphPage, toRunGraph, type GraphNode, type RunGraph } from '../src/domain/run-graph.js';
import { blobKeys } from '../workflows/plan-run-contract.js';

export interface RunGraphParts {
  /** The run's whole plan from the database, in plan order (activities/runs.ts). */
  loadRunPlan: (input: { runId: string }) => Promise<GraphNode[]>;
  blobs: Pick<BlobStore, 'get' | 'put'>;
}

/**
 * A plan run's graph by reference: the first run of a chain builds it from the database and stores it under
 * `blobKeys.runGraph`; every run of the chain reads its pages from there (the key is the run's, so continuing as new
 * hands on nothing but the run's id). The chain schedules one fixed graph even if test cases change meanwhile, and
 * the plan's settings never enter a history: a test's activity reads its own row.
 */
export function createRunGraphActivities(parts: RunGraphParts) {
  // A run reads its graph in pages, one after the other: the last graph read serves the next page without reading
  // and parsing the whole blob again. A graph never changes once stored, so it cannot be stale.
  let last: { key: string; graph: RunGraph } | undefined;
  const read = async (runId: string, runShortId: string): Promise<RunGraph> => {
    const key = blobKeys.runGraph(runShortId);
    if (last?.key === key) return last.graph;
    const graph = await stored(runId, key);
    last = { key, graph };
    return graph;
  };
  const stored = async (runId: string, key: string): Promise<RunGraph> => {
    try {
      return JSON.parse((await parts.blobs.get(key)).toString('utf8')) as RunGraph;
    } catch (err) {
      if (!(err instanceof BlobNotFoundError)) throw err;
    }
    // Building twice (a retried first page) writes the same graph: the run's tests are fixed when it is created.
    const graph = toRunGraph(await parts.loadRunPlan({ runId }));
    await parts.blobs.put(key, Buffer.from(JSON.stringify(graph)), 'application/json');
    return graph;
  };
  return {
    /** Tests `offset` to `offset + limit` of the run's graph, building and storing the graph on the first call. */
    async loadRunGraph(input: {
      runId: string;
      runShortId: string;
      offset: number;
      limit: number;
    }): Promise<RunGraph & { total: number }> {
      return graphPage(await read(input.runId, input.runShortId), input.offset, input.limit);
    },
  };
}
