import { createRequire } from 'node:module';
import { createTraceState, type Attributes } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { ActivityInterceptorsFactory, InjectedSinks, WorkerOptions } from '@temporalio/worker';
import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type {
  OpenTelemetrySinks,
  SerializableSpan,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import { withLogFields, type LogFields } from '../logger.js';
import { spanAttr, withSpanAttributes } from '../tracing.js';
import type { Tracing } from '../tracing-setup.js';

// Temporal's side of tracing: the client puts the caller's trace context in a workflow's headers, the workflow
// interceptors (bundled into the sandbox, `workflowTracingModules`) continue it and hand their spans out through the
// `exporter` sink, and the activity interceptors continue it in the activity. Proctor's own activity interceptor adds
// the run, project and test case an activity works on to its spans and its log lines, tracing or not.

/** The workflow bundle's interceptor modules: OpenTelemetry's, in every bundle so tracing is a worker setting. */
export const workflowTracingModules = [
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/** The client's interceptors: trace context into the workflows it starts and signals (none without tracing). */
export function tracingClientInterceptors(tracing: Tracing | undefined): ClientInterceptors | undefined {
  return tracing ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/** What an activity's or workflow's input says it works on: the run, the project, the test case. */
export function workOf(input: unknown): Attributes {
  const first = Array.isArray((input as { tests?: unknown[] })?.tests)
    ? (input as { tests: unknown[] }).tests[0]
    : input;
  const attrs: Attributes = {};
  for (const source of [input, first]) {
    if (!source || typeof source !== 'object') continue;
    const fields = source as Record<string, unknown>;
    const set = (key: string, value: unknown) => {
      if (typeof value === 'string' && value) attrs[key] ??= value;
    };
    set(spanAttr.runId, fields.runId);
    set(spanAttr.runShortId, fields.runShortId);
    set(spanAttr.projectId, fields.projectId);
    set(spanAttr.testCaseId, fields.testCaseId);
  }
  return attrs;
}

/** The run or test case a workflow id names (workflows/shared.ts `workflowIds`). */
export function workOfWorkflowId(workflowId: string): Attributes {
  const [kind, first] = workflowId.split(':');
  if (kind === 'run' && first) return { [spanAttr.runShortId]: first };
  if (kind === 'burn-in' && first) return { [spanAttr.testCaseId]: first };
  return {};
}

const logFieldNames: Record<string, string> = {
  [spanAttr.runId]: 'runId',
  [spanAttr.runShortId]: 'runShortId',
  [spanAttr.projectId]: 'projectId',
  [spanAttr.testCaseId]: 'testCaseId',
};

/** Proctor's activity interceptor: the activity's ids and its work on its spans and log lines. */
const proctorActivity: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute(input, next) {
      const work = workOf(input.args[0]);
      const fields: LogFields = {
        workflowId: ctx.info.workflowExecution?.workflowId,
        activityId: ctx.info.activityId,
        activityType: ctx.info.activityType,
      };
      for (const [key, value] of Object.entries(work)) fields[logFieldNames[key]!] = value;
      return withLogFields(fields, () => withSpanAttributes(work, () => next(input)));
    },
  },
});

/** A workflow span handed out of the sandbox, as the SDK's processors take it. */
function readableSpan(span: SerializableSpan, tracing: Tracing, extra: Attributes): ReadableSpan {
  const { traceState, ...context } = span.spanContext;
  const spanContext = { ...context, traceState: traceState ? createTraceState(traceState) : undefined };
  return {
    ...span,
    attributes: { ...span.attributes, ...extra },
    resource: tracing.resource,
    spanContext: () => spanContext,
  };
}

/**
 * The workflow spans' sink. Always registered, since every bundle carries the interceptors: without tracing the
 * spans made in the sandbox are dropped here.
 */
export function workflowSpanSinks(tracing: Tracing | undefined): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          if (!tracing) return;
          const extra: Attributes = {
            'temporal.workflow.id': info.workflowId,
            'temporal.workflow.type': info.workflowType,
            'temporal.run.id': info.runId,
            ...workOfWorkflowId(info.workflowId),
          };
          for (const span of spans) tracing.processor.onEnd(readableSpan(span, tracing, extra));
        },
      },
    },
  };
}

/** A worker's interceptors and sinks: Proctor's activity interceptor, OpenTelemetry's when tracing. */
export function workerTracingOptions(tracing: Tracing | undefined): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const activity: ActivityInterceptorsFactory[] = tracing
    ? [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
        proctorActivity,
      ]
    : [proctorActivity];
  return { interceptors: { activity }, sinks: workflowSpanSinks(tracing) };
}
