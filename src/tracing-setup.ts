import { createRequire } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

// The OpenTelemetry SDK, installed only when the standard OTEL_* variables ask for traces: with none set no provider
// is registered and src/tracing.ts runs on the API's no-ops (no span is recorded, nothing is sent).

export type Env = Record<string, string | undefined>;

/**
 * Where spans go (OTLP over HTTP), or undefined when traces are off: OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none, or no endpoint and no exporter named. OTEL_TRACES_EXPORTER=otlp alone sends to the
 * specification's default endpoint. An exporter Proctor does not ship (console, zipkin…) is refused.
 */
export function tracesEndpoint(env: Env): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return undefined;
  const unknown = exporters.filter((e) => e !== 'otlp');
  if (unknown.length > 0)
    throw new Error(
      `OTEL_TRACES_EXPORTER=${unknown.join(',')} is not supported: Proctor exports traces with otlp only`,
    );
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && !protocol.startsWith('http/'))
    throw new Error(`OTLP protocol ${protocol} is not supported: Proctor sends OTLP over HTTP (http/protobuf)`);
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (signal) return signal;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base) return `${base.replace(/\/+$/, '')}/v1/traces`;
  return exporters.includes('otlp') ? 'http://localhost:4318/v1/traces' : undefined;
}

export interface Tracing {
  /** The processor workflow spans go to (they are made in the workflow sandbox and handed over by a sink). */
  processor: SpanProcessor;
  resource: Resource;
  /** Sends what is buffered (a test reads the collector after it). */
  flush(): Promise<void>;
  /** Flushes and uninstalls the provider. */
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

const require = createRequire(import.meta.url);
interface Sdk {
  '@opentelemetry/exporter-trace-otlp-http': typeof import('@opentelemetry/exporter-trace-otlp-http');
  '@opentelemetry/resources': typeof import('@opentelemetry/resources');
  '@opentelemetry/sdk-trace-base': typeof import('@opentelemetry/sdk-trace-base');
  '@opentelemetry/sdk-trace-node': typeof import('@opentelemetry/sdk-trace-node');
  '@opentelemetry/semantic-conventions': typeof import('@opentelemetry/semantic-conventions');
}
const sdk = <K extends keyof Sdk>(name: K): Sdk[K] => require(name) as Sdk[K];

/** The tracing this process installed, if any (the Temporal client and worker add their interceptors then). */
export const activeTracing = (): Tracing | undefined => installed;

/**
 * Installs the tracer provider when `env` asks for traces (once per process; a second call returns the first).
 * `service` names the process (`proctor-api`, `proctor-worker`) unless OTEL_SERVICE_NAME does.
 */
export function startTracing(service: string, env: Env = process.env): Tracing | undefined {
  if (installed) return installed;
  const url = tracesEndpoint(env);
  if (!url) return undefined;
  // The SDK is loaded only here, when traces are on: the OTLP exporter pulls in the OTLP transformer and the metrics
  // SDK (about 130 modules), which every process paid at start-up with tracing off. These packages are CommonJS, so
  // require gives the same instances an import would, synchronously.
  const { OTLPTraceExporter } = sdk('@opentelemetry/exporter-trace-otlp-http');
  const { Resource, envDetectorSync } = sdk('@opentelemetry/resources');
  const { BatchSpanProcessor } = sdk('@opentelemetry/sdk-trace-base');
  const { NodeTracerProvider } = sdk('@opentelemetry/sdk-trace-node');
  const { ATTR_SERVICE_NAME } = sdk('@opentelemetry/semantic-conventions');
  // OTEL_RESOURCE_ATTRIBUTES through the env detector; OTEL_SERVICE_NAME beats the default name.
  const resource = Resource.default()
    .merge(envDetectorSync.detect())
    .merge(new Resource({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME?.trim() || service }));
  // OTEL_EXPORTER_OTLP_HEADERS, timeouts and OTEL_BSP_* are read by the exporter and the processor themselves.
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // Registers the AsyncLocalStorage context manager and the W3C trace-context propagator with the provider.
  provider.register();
  const tracing: Tracing = {
    processor,
    resource,
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      if (installed === tracing) installed = undefined;
    },
  };
  installed = tracing;
  return tracing;
}
