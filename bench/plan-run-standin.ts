// bench/plan-run's fast test body, shared by the in-process worker and the worker processes (plan-run-worker.ts).
import { setTimeout as delay } from 'node:timers/promises';
import type { Activities } from '../activities/index.js';
import type { BlobStore } from '../src/storage/blob-store.js';

/**
 * The real activity's contract, a sleep instead of the replay: it still reads its resume-from dependency's state
 * blob and writes its own, so with several workers the state crosses processes through the blob store as it does
 * for real replays.
 */
export function standInExecuteTest(blobs: BlobStore, ms: number): Activities['executeTest'] {
  return async (input) => {
    if (input.stateKey) await blobs.get(input.stateKey);
    await delay(ms);
    if (input.captureStateKey) {
      const state = { cookies: [], origins: [], url: input.baseUrl ?? '' };
      await blobs.put(input.captureStateKey, Buffer.from(JSON.stringify(state)), 'application/json');
    }
    return {
      status: 'PASSED',
      healed: [],
      stepsVersion: 1,
      durationMs: ms,
      llmCalls: 0,
      stateKey: input.captureStateKey,
      changes: [],
    };
  };
}

/** Counts the executeTest calls this worker ran (each worker reports its share of the run). */
export function counted(executeTest: Activities['executeTest'], count: { n: number }): Activities['executeTest'] {
  return async (input) => {
    count.n++;
    return executeTest(input);
  };
}
