import { z } from '@hono/zod-openapi';
import { shortId } from './common.js';
import { runStatuses } from './runs.js';
import { changeFields, failureKinds } from '../domain/verdicts.js';
import { UsageSchema } from './usage.js';

// Response shapes of the run routes (src/api/routes/runs.ts, run-list.ts): a run as started, shown and listed.

export const RunRef = z.object({
  id: z.string().uuid(),
  shortId: shortId('run'),
  url: z.string().url(),
  testCount: z.number().int(),
});
export const StartRunResponse = z
  .object({
    success: z.literal(true),
    run: RunRef.extend({ testPlan: z.object({ name: z.string(), shortId: shortId('testPlan') }).nullable() }),
  })
  .openapi('StartRunResponse');

export const RunTestCaseSchema = z
  .object({
    id: z.string().uuid(),
    shortId: z.string().openapi({ description: 'The test case id (UUID)' }),
    name: z.string(),
    status: z.enum(['PENDING', 'RUNNING', 'COMPLETED', 'SKIPPED', 'ERROR', 'CANCELLED']),
    result: z.enum(['PASSED', 'FAILED', 'SKIPPED']).nullable(),
    resultTitle: z.string().nullable(),
    evaluationThought: z.string().nullable().openapi({ description: 'Why it failed or was skipped' }),
    promptGoal: z.string().nullable(),
    promptExamples: z
      .string()
      .nullable()
      .openapi({ description: "QA.tech's prompt examples of the test, as text; Proctor records none, so null" }),
    inPlan: z.boolean().openapi({ description: 'false for a dependency included automatically' }),
    environmentUrl: z.string().nullable(),
    failedStepIndex: z.number().int().nullable().openapi({
      description:
        '0-based index into the recorded steps (`error` says "step N" with N = failedStepIndex + 1); -1 when the start page did not open',
    }),
    error: z.string().nullable().openapi({
      description: 'For a failed assertion it ends with a short, redacted excerpt of what the page showed',
    }),
    healedSteps: z
      .array(
        z.object({
          index: z.number().openapi({ description: '0-based, like failedStepIndex' }),
          from: z.string().nullable().optional(),
          to: z.string(),
          via: z.string().openapi({
            description:
              '`fallback`: a recorded alternative locator matched; `llm`: the model re-found the element and the pick was checked',
          }),
          reason: z.string().optional(),
        }),
      )
      .openapi({
        description:
          'Steps this run found through another locator than their primary; non-empty means the run needed healing',
      }),
    changes: z
      .array(
        z.object({
          stepIndex: z.number().int().openapi({ description: '0-based, like failedStepIndex' }),
          field: z.enum(changeFields),
          from: z.string().nullable(),
          to: z.string().nullable(),
          severity: z.enum(['regression', 'cosmetic']).openapi({
            description:
              '`regression`: something a user depends on broke (a lost accessible name, another role); `cosmetic`: worth a note',
          }),
          summary: z.string().openapi({ example: 'the checkbox "Select all" lost its accessible name' }),
        }),
      )
      .openapi({
        description: 'How the elements the replay used differ from the recorded ones; empty when all are the same',
      }),
    failureKind: z.enum(failureKinds).nullable().openapi({
      description:
        'Why a failed or errored test failed: a real bug (`assertion`, `element-missing`, `changed-ui`), a down `environment`, a broken `test-definition` or an `infrastructure` fault; null when it passed or is unknown',
    }),
    evidence: z
      .object({
        url: z.string().optional(),
        pageExcerpt: z.string().optional(),
        httpStatus: z.number().int().optional(),
      })
      .nullable()
      .openapi({
        description:
          "What backs the failure kind: the page URL, a redacted excerpt of what it showed, the main document's HTTP status (the screenshot is `screenshotUrl`)",
      }),
    flaky: z.boolean().openapi({ description: 'PASSED only on a retry (see `retries` in `/v1/project/settings`)' }),
    attempts: z.number().int().openapi({
      description: "Executions of the test in this run, retries included; the result and artifacts are the last one's",
    }),
    quarantined: z.boolean().openapi({
      description: 'Quarantined when the run was written: it ran and reports, but its failure does not fail the run',
    }),
    screenshotUrl: z
      .string()
      .nullable()
      .openapi({ description: 'Presigned, expiring link to the failing step screenshot' }),
    traceUrl: z.string().nullable().openapi({
      description: 'Presigned, expiring link to the Playwright trace (open with `npx playwright show-trace`)',
    }),
    downloads: z
      .array(
        z.object({
          stepIndex: z.number().int(),
          fileName: z.string(),
          size: z.number().int(),
          type: z.string(),
          url: z.string(),
        }),
      )
      .openapi({
        description:
          'Files the steps downloaded, checked against what was recorded (name pattern, size, type), with presigned, expiring links',
      }),
    signalCounts: z
      .object({
        console: z.number().int(),
        exception: z.number().int(),
        network: z.number().int(),
        a11y: z.number().int(),
      })
      .nullable()
      .openapi({
        description:
          "Distinct quality signals the replay saw, per kind (they make the project's issues, `GET /v1/issues`); null when none were collected",
      }),
    durationMs: z.number().int().nullable(),
    startedAt: z.string().datetime().nullable(),
    finishedAt: z.string().datetime().nullable(),
  })
  .openapi('RunTestCase');

export const RunSchema = z
  .object({
    id: z.string().uuid(),
    shortId: shortId('run'),
    url: z.string().url(),
    status: z
      .enum(['INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED'])
      .openapi({ description: 'COMPLETED, ERROR and CANCELLED are terminal' }),
    result: z
      .enum(['PASSED', 'FAILED', 'SKIPPED'])
      .nullable()
      .openapi({ description: 'PASSED means success; null until the run ends' }),
    error: z.string().nullable(),
    trigger: z.string(),
    testCount: z.number().int(),
    testPlan: z.object({ name: z.string(), shortId: z.string() }).nullable(),
    rerunOf: z.string().nullable(),
    traceId: z.string().nullable().openapi({
      description:
        'Extension to the spec: the OpenTelemetry trace (W3C hex id) the run was started in; null when tracing was off',
    }),
    createdAt: z.string().datetime(),
    startedAt: z.string().datetime().nullable(),
    finishedAt: z.string().datetime().nullable(),
    runTestCases: z.array(RunTestCaseSchema).openapi({
      description:
        'The tests with ?testCases=all, those that did not pass with ?testCases=failed; always present, empty without the parameter',
    }),
    usage: UsageSchema.openapi({
      description: "Extension to the spec: what the run's heals cost in LLM calls and tokens (replays need no model)",
    }),
  })
  .openapi('Run');

export const RerunResponse = z.object({ success: z.literal(true), run: RunRef });
export const CancelRunResponse = z.object({ success: z.literal(true), status: z.string() });

export const RunListItem = z
  .object({
    id: z.string().uuid(),
    shortId: shortId('run'),
    url: z.string().url(),
    status: z.enum(runStatuses),
    result: z.enum(['PASSED', 'FAILED', 'SKIPPED']).nullable(),
    trigger: z.string(),
    branch: z.string().nullable(),
    commitHash: z.string().nullable(),
    testCount: z.number().int(),
    testPlan: z.object({ name: z.string(), shortId: z.string() }).nullable(),
    createdAt: z.string().datetime(),
    startedAt: z.string().datetime().nullable(),
    finishedAt: z.string().datetime().nullable(),
  })
  .openapi('RunListItem');

export const RunListPage = z.object({
  runs: z.array(RunListItem),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
