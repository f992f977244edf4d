import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext } from '../support/app-context.js';

// Served outside the /v1 contract on purpose: docs, the fs blob store's presigned URLs.
const undocumented = new Set(['/docs', '/v1/openapi.json', '/blobs/*']);

describe('OpenAPI document', () => {
  let ctx: ApiContext;
  let doc: { openapi: string; paths: Record<string, Record<string, { security?: unknown[] }>>; components: { schemas: Record<string, unknown> } };
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
      .filter((r) => r.method !== 'ALL' && !undocumented.has(r.path))
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(served.length).toBeGreaterThan(5);
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
  });

  it('carries the short-id patterns of the spec', () => {
    const text = JSON.stringify(doc);
    for (const pattern of ['^app(-.+_.+|_.+)$', '^env(-.+_.+|_.+)$', '^preset(-.+_.+|_.+)$', '^build(-.+_.+|_.+)$']) {
      expect(text).toContain(JSON.stringify(pattern).slice(1, -1));
    }
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
