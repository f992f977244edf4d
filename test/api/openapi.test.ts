import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortIdDocPattern } from '../../src/schemas/common.js';
import { shortIdPattern } from '../../src/domain/short-ids.js';
import { createDashboard } from '../../src/web/index.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';

// Served outside the /v1 contract on purpose: docs (and their script), the fs blob store's presigned URLs,
// the dashboard's HTML pages.
const undocumented = new Set([
  '/docs',
  '/v1/openapi.json',
  '/blobs/*',
  // The platform's probes (src/api/routes/probes.ts): for Kubernetes and load balancers, not API clients.
  '/livez',
  '/readyz',
  ...createDashboard('').routes.map((r) => r.path),
]);
const isUndocumented = (path: string) => undocumented.has(path) || /^\/docs\/scalar\.\w+\.js$/.test(path);

describe('OpenAPI document', () => {
  let ctx: ApiContext;
  let doc: {
    openapi: string;
    paths: Record<string, Record<string, { security?: unknown[] }>>;
    components: { schemas: Record<string, unknown> };
  };
  beforeAll(async () => {
    ctx = await createApiContext('pglite');
    const res = await ctx.app.request('/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = (await res.json()) as typeof doc;
  });
  afterAll(() => ctx.close());

  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('declares every route the app serves, with its method', () => {
    const served = ctx.app.routes
      .filter((r) => r.method !== 'ALL' && !isUndocumented(r.path))
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(served.length).toBeGreaterThan(5);
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)),
    );
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
  });

  it("carries the spec's short-id patterns, with `.` spelled as JavaScript reads it", () => {
    const text = JSON.stringify(doc);
    for (const kind of ['application', 'environment', 'devicePreset', 'build'] as const) {
      const documented = shortIdDocPattern(kind);
      expect(text).toContain(JSON.stringify(documented).slice(1, -1));
      // Same meaning as the spec's pattern here; only a client whose `.` also matches `\r` (Python) reads them differently.
      const spec = new RegExp(shortIdPattern(kind));
      const prefix = shortIdPattern(kind).slice(1).split('(')[0];
      for (const id of [
        `${prefix}_x`,
        `${prefix}-shop_x1`,
        `${prefix}-_`,
        `${prefix}_`,
        `${prefix}_a\rb`,
        `${prefix}_a\nb`,
        `x${prefix}_a`,
      ]) {
        expect(new RegExp(documented).test(id), JSON.stringify(id)).toBe(spec.test(id));
      }
    }
  });

  it('states the rules the server enforces', () => {
    const schemas = doc.components.schemas as Record<string, Record<string, any>>;
    const text = JSON.stringify(doc);
    // Lists of distinct entries, the exactly-one-of forms, the deepest page, http(s)-only URLs, IANA zones.
    expect(schemas.CreateTestPlan!.properties.testCaseIds.uniqueItems).toBe(true);
    expect(schemas.CreateTestCase!.properties.labels.uniqueItems).toBe(true);
    expect(schemas.CreateEnvironment!.oneOf).toEqual([
      { required: ['url'] },
      { required: ['applicationBuildShortId'] },
    ]);
    expect(schemas.StartRun!.properties.applications.items.properties.environment.oneOf).toHaveLength(3);
    expect(schemas.Rerun!.not).toEqual({ required: ['failedOnly', 'projectTestCaseIds'] });
    const listParams = (
      doc.paths['/v1/test-cases']!.get as unknown as { parameters: { name: string; schema: { maximum?: number } }[] }
    ).parameters;
    expect(listParams.find((p) => p.name === 'offset')!.schema.maximum).toBeGreaterThan(0);
    const urlPattern = new RegExp(schemas.CreateEnvironment!.properties.url.pattern);
    expect(['https://shop.example.com/a?b=c', 'http://user:pw@10.0.0.1:8080/'].every((u) => urlPattern.test(u))).toBe(
      true,
    );
    expect(['file:///etc/passwd', 'javascript:alert(1)', 'ftp://x.example.com/'].some((u) => urlPattern.test(u))).toBe(
      false,
    );
    expect(new RegExp(schemas.IanaTimeZone!.pattern).test('Europe/Paris')).toBe(true);
    expect(new RegExp(schemas.IanaTimeZone!.pattern).test('Mars/Olympus')).toBe(false);
    // Every PATCH needs its body; every object's keys, and whatever unknown fields hold, are NUL-free.
    for (const [path, ops] of Object.entries(doc.paths)) {
      const patch = (ops as Record<string, { requestBody?: { required?: boolean } }>).patch;
      if (patch) expect(patch.requestBody?.required, path).toBe(true);
    }
    expect(schemas.CreateApplication!.propertyNames).toEqual({ pattern: '^[^\\u0000]*$' });
    expect(schemas.CreateApplication!.additionalProperties).toEqual({ $ref: '#/components/schemas/NulFreeJson' });
    expect(text).toContain('PROCTOR_MAX_BODY_BYTES');
  });

  it('requires the bearer token on every /v1 operation and documents the error envelope', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/') || path === '/v1/badge.svg') continue;
      for (const [method, op] of Object.entries(ops)) {
        expect(op.security, `${method} ${path}`).toEqual([{ bearerAuth: [] }]);
      }
    }
    expect(doc.components.schemas.Error).toBeDefined();
  });

  it('serves an interactive reference at /docs pointing at the document', async () => {
    const res = await ctx.app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('/v1/openapi.json');
  });
});
