// How many ready tests one activity of a plan run takes: one, unless the ready queue is deep.
//
// Each activity costs a round of orchestration around its tests (the run's workflow task, the activity's dispatch:
// ~90 ms on the 2-core bench machine, bench/plan-run), which with short tests is a third of a slot's time. While
// many more tests are ready than there are slots, the tests waiting anyway can as well run back to back in one
// activity: guided self-scheduling, a chunk of ready / slots, so batches shrink as the queue drains and the run
// ends without one long batch holding the last slot. A test that becomes ready reaches the queue when its
// dependency's batch completes, which only costs it time it would have spent queueing.

/** Tests one activity takes at most: bounds how long a dependent waits on a batch (8 short tests). */
export const maxBatch = 8;

/** Tests per activity for `ready` ready tests and `slots` slots of the run: floor(ready / slots), 1..maxBatch. */
export function batchSize(ready: number, slots: number): number {
  if (slots < 1) return 1;
  return Math.max(1, Math.min(maxBatch, Math.floor(ready / slots)));
}

/** `ids` in batches of `size`, in order. */
export function inBatches<T>(ids: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < ids.length; i += size) batches.push(ids.slice(i, i + size));
  return batches;
}
