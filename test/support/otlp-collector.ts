import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { listenOnFreePort } from './net.js';

// An OpenTelemetry collector stand-in: an HTTP server taking OTLP trace exports (POST /v1/traces) as JSON or
// protobuf, as a real collector's OTLP/HTTP receiver does, and keeping the spans it got, flattened.

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, string | number | boolean>;
  status?: number;
}

export interface OtlpCollector {
  /** `http://127.0.0.1:<port>`: an OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** How many export requests arrived (any path). */
  requests: number;
  stop(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string | { low: number; high: number };
  doubleValue?: number;
  boolValue?: boolean;
};
type KeyValue = { key: string; value?: AnyValue };

const valueOf = (v: AnyValue | undefined): string | number | boolean => {
  if (!v) return '';
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.intValue !== undefined) return Number(typeof v.intValue === 'object' ? v.intValue.low : v.intValue);
  return '';
};
const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
const hex = (id: unknown): string =>
  typeof id === 'string' ? id : id instanceof Uint8Array ? Buffer.from(id).toString('hex') : '';

/** The protobuf request type, from the transformer's generated code (the exporter's own dependency). */
function protobufDecoder(): (bytes: Buffer) => unknown {
  const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js');
  const type = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  return (bytes) => type.toObject(type.decode(bytes), { longs: Number, bytes: Buffer });
}

function spansOf(request: any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        spans.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId) || undefined,
          name: s.name,
          kind: s.kind,
          service,
          attributes: attributesOf(s.attributes),
          status: s.status?.code,
        });
  }
  return spans;
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const collector = { spans: [] as ReceivedSpan[], requests: 0 } as OtlpCollector;
  const decodeProtobuf = protobufDecoder();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      collector.requests++;
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      try {
        const json = (req.headers['content-type'] ?? '').includes('json');
        collector.spans.push(...spansOf(json ? JSON.parse(body.toString('utf8')) : decodeProtobuf(body)));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (err) {
        res.writeHead(400).end(String(err));
      }
    });
  });
  const port = await listenOnFreePort(server);
  collector.url = `http://127.0.0.1:${port}`;
  collector.stop = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return collector;
}
