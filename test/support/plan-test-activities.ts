import type { Client } from '@temporalio/client';
import type { TestExecutionInput } from '../../workflows/test-execution-contract.js';

// A plan run's tests as Temporal shows them: `runPlanTests` activities in the run's history (workflows/planRun.ts), each
// running one test or a batch of ready tests, named by their names. What the end-to-end tests check about attempts,
// workers and summaries.

export interface PlanTestActivity {
  testCaseId: string;
  /** The activity's summary: the test's name, or "N tests: a, b, ..." for a batch. */
  summary: string;
  input: TestExecutionInput;
  /** Temporal writes one started event per finished activity, with the attempt that finished it (>1: a retry). */
  started: { identity: string; attempt: number; lastFailure?: string }[];
  completed: number;
}

const text = (data: Uint8Array | null | undefined): string => (data ? Buffer.from(data).toString('utf8') : '');

/** The run's current history (the latest run of its chain): each test's activity, by test case id. */
export async function planTestActivities(client: Client, runShortId: string): Promise<Map<string, PlanTestActivity>> {
  const history = await client.workflow.getHandle(`run:${runShortId}`).fetchHistory();
  const byEvent = new Map<string, PlanTestActivity[]>();
  const byTest = new Map<string, PlanTestActivity>();
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'runPlanTests') {
      const { tests } = JSON.parse(text(scheduled.input?.payloads?.[0]?.data)) as { tests: TestExecutionInput[] };
      const summary = JSON.parse(text(e.userMetadata?.summary?.data)) as string;
      // One record of attempts per activity, shared by the tests of its batch.
      const started: PlanTestActivity['started'] = [];
      const batch = tests.map((input) => ({ testCaseId: input.testCaseId, summary, input, started, completed: 0 }));
      byEvent.set(String(e.eventId), batch);
      for (const t of batch) byTest.set(t.testCaseId, t);
    }
    const started = e.activityTaskStartedEventAttributes;
    const ofStarted = started && byEvent.get(String(started.scheduledEventId));
    if (ofStarted)
      ofStarted[0]!.started.push({
        identity: started.identity ?? '',
        attempt: started.attempt ?? 0,
        ...(started.lastFailure?.message && { lastFailure: started.lastFailure.message }),
      });
    const completed = e.activityTaskCompletedEventAttributes;
    const ofCompleted = completed && byEvent.get(String(completed.scheduledEventId));
    if (ofCompleted) for (const t of ofCompleted) t.completed++;
  }
  return byTest;
}

/** Tests whose activity (their batch's) is pending now: `started` once a worker took the attempt, and which worker that was. */
export async function pendingPlanTests(
  client: Client,
  runShortId: string,
): Promise<{ testCaseId: string; activityId: string; started: boolean; worker: string }[]> {
  const handle = client.workflow.getHandle(`run:${runShortId}`);
  const [description, history] = await Promise.all([handle.describe(), handle.fetchHistory()]);
  const byActivityId = new Map<string, string[]>();
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'runPlanTests' && scheduled.activityId) {
      byActivityId.set(
        scheduled.activityId,
        (JSON.parse(text(scheduled.input?.payloads?.[0]?.data)) as { tests: TestExecutionInput[] }).tests.map(
          (t) => t.testCaseId,
        ),
      );
    }
  }
  return (
    (description.raw.pendingActivities ?? [])
      .filter((a) => a.activityType?.name === 'runPlanTests' && a.activityId && byActivityId.has(a.activityId))
      // 2 = PENDING_ACTIVITY_STATE_STARTED: a worker took the attempt (it is not only scheduled).
      .flatMap((a) =>
        byActivityId.get(a.activityId!)!.map((testCaseId) => ({
          testCaseId,
          activityId: a.activityId!,
          started: a.state === 2,
          worker: a.lastWorkerIdentity ?? '',
        })),
      )
  );
}
