import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { withLogFields } from '../logger.js';
import { annotateSpan, spanAttr } from '../tracing.js';

// One server span per request, named by its route pattern (`POST /v1/run`, never the ids in the path), continuing
// a caller's `traceparent`. The work the request starts (a workflow, a run's row) nests under it, so a run's trace
// begins here. Without a tracer provider every call below is the OpenTelemetry API's no-op.
const tracer = () => trace.getTracer('proctor-api');

const headerGetter = {
  keys: (headers: Headers) => {
    const keys: string[] = [];
    headers.forEach((_value, key) => keys.push(key));
    return keys;
  },
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
};

export const requestSpan: MiddlewareHandler = async (c, next) => {
  const parent = propagation.extract(context.active(), c.req.raw.headers, headerGetter);
  const method = c.req.method;
  const span = tracer().startSpan(
    `${method}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    // The pattern of the handler that answered (`/v1/run/:shortId`), known once routing has run.
    const route = c.req.routePath;
    const status = c.res.status;
    span.updateName(`${method} ${route}`);
    span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
};

/** After the token check: the caller's project on the request's span and on every log line of the rest of it. */
export const callerContext: MiddlewareHandler = async (c, next) => {
  const caller = c.get('caller') as { projectId: string } | undefined;
  if (!caller) return next();
  annotateSpan({ [spanAttr.projectId]: caller.projectId });
  return withLogFields({ projectId: caller.projectId }, next);
};
