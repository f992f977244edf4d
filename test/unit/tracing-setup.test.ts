import { describe, expect, it } from 'vitest';
import { tracesEndpoint } from '../../src/tracing-setup.js';

// Which OTEL_* settings turn traces on, and where they go: the specification's variables, each combination.
// (test/e2e/tracing.test.ts checks that no provider is installed when this says off, and a run's spans when on.)

describe('tracesEndpoint: the standard OTEL_* variables decide', () => {
  const base = 'http://collector:4318';
  it.each([
    ['nothing set', {}, undefined],
    ['only a service name', { OTEL_SERVICE_NAME: 'proctor' }, undefined],
    ['the general endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: base }, `${base}/v1/traces`],
    ['the general endpoint with a slash', { OTEL_EXPORTER_OTLP_ENDPOINT: `${base}/` }, `${base}/v1/traces`],
    ['a base path', { OTEL_EXPORTER_OTLP_ENDPOINT: `${base}/otlp` }, `${base}/otlp/v1/traces`],
    ['the traces endpoint, as is', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${base}/custom` }, `${base}/custom`],
    [
      'the traces endpoint beats the general one',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${base}/t` },
      `${base}/t`,
    ],
    ['otlp named, no endpoint: the default one', { OTEL_TRACES_EXPORTER: 'otlp' }, 'http://localhost:4318/v1/traces'],
    [
      'otlp named with an endpoint',
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: base },
      `${base}/v1/traces`,
    ],
    ['exporter none beats an endpoint', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: base }, undefined],
    ['none among others', { OTEL_TRACES_EXPORTER: 'otlp,none', OTEL_EXPORTER_OTLP_ENDPOINT: base }, undefined],
    ['SDK disabled', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: base }, undefined],
    ['SDK disabled, any case', { OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' }, undefined],
    ['SDK not disabled', { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: base }, `${base}/v1/traces`],
    ['http/json', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_ENDPOINT: base }, `${base}/v1/traces`],
    [
      'http/protobuf for traces',
      { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_ENDPOINT: base },
      `${base}/v1/traces`,
    ],
  ])('%s', (_name, env, expected) => {
    expect(tracesEndpoint(env)).toBe(expected);
  });

  it.each([
    [
      'an exporter Proctor does not ship',
      { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_ENDPOINT: base },
      /zipkin/,
    ],
    ['console beside otlp', { OTEL_TRACES_EXPORTER: 'otlp,console' }, /console/],
    ['OTLP over gRPC', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: base }, /grpc/],
  ])('refuses %s, instead of sending nothing silently', (_name, env, message) => {
    expect(() => tracesEndpoint(env)).toThrow(message);
  });
});
