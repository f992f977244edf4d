import {
  context,
  createContextKey,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';

// Spans through the OpenTelemetry API only: with no tracer provider installed (no OTEL_* variables, see
// src/tracing-setup.ts) every call here is the API's no-op, so the code paths need no "is tracing on" checks.

const tracer = () => trace.getTracer('proctor');

/** Attributes every span started below in this context carries: the run and project a piece of work belongs to. */
const inheritedKey = createContextKey('proctor.inherited-attributes');

const inherited = (): Attributes | undefined => context.active().getValue(inheritedKey) as Attributes | undefined;

/** Runs `fn` with `attrs` added to the spans it starts (with `inSpan`), and to the current span. */
export function withSpanAttributes<T>(attrs: Attributes, fn: () => T): T {
  trace.getActiveSpan()?.setAttributes(attrs);
  return context.with(context.active().setValue(inheritedKey, { ...inherited(), ...attrs }), fn);
}

/** Adds attributes to the current span (e.g. the request's, once it knows the run it created). */
export function annotateSpan(attrs: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attrs);
}

/** Runs `fn` in a child span of the current one; a thrown error marks the span as failed and is rethrown. */
export function inSpan<T>(
  name: string,
  attrs: Attributes,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes: { ...inherited(), ...attrs } }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The current trace and span, when a recording span is active. */
export function currentTrace(): { traceId: string; spanId: string } | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && isSpanContextValid(ctx) ? { traceId: ctx.traceId, spanId: ctx.spanId } : undefined;
}

/** Attribute names Proctor sets, in one place so the spans of a run can be found by them. */
export const spanAttr = {
  runId: 'proctor.run.id',
  runShortId: 'proctor.run.short_id',
  projectId: 'proctor.project.id',
  testCaseId: 'proctor.test_case.id',
  stepAction: 'proctor.step.action',
  llmRole: 'proctor.llm.role',
} as const;
