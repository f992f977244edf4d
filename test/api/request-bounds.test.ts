import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, useApiContext } from '../support/app-context.js';

// Every number a client sends is bounded, so none can reach Postgres out of its column's range (a steps version
// of 2268814451569432 once answered 500). Walks every request parameter and body schema of the served document.
const maxColumnInt = 2_147_483_647;
// Numbers that are not compared with an integer column: they may go up to what JSON carries exactly.
const wider = new Map([
  ['post /v1/applications/{applicationShortId}/builds/upload-url body.fileSize', 'a bigint column'],
  ['post /v1/git-integrations body.appId', 'stored as text'],
  ['patch /v1/git-integrations/{integrationShortId} body.appId', 'stored as text'],
  ['post /v1/mcp body.id', 'a JSON-RPC id, echoed back'],
  ['put /v1/usage/budget body.dailyTokens', 'a bigint column'],
  ['put /v1/usage/budget body.dailyUsd', 'a double precision column'],
]);

type Schema = Record<string, unknown>;

describe('every request number is bounded by the OpenAPI document', () => {
  let ctx: ApiContext;
  let doc: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };
  beforeAll(async () => {
    ctx = await createApiContext('pglite');
    doc = (await (await ctx.app.request('/v1/openapi.json')).json()) as typeof doc;
  });
  afterAll(() => ctx.close());

  /** Every integer or number schema under `schema`, with the path that leads to it. */
  function numbers(schema: unknown, at: string, seen = new Set<unknown>()): Array<{ at: string; schema: Schema }> {
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return [];
    seen.add(schema);
    const s = schema as Schema;
    if (typeof s.$ref === 'string') return numbers(doc.components.schemas[s.$ref.split('/').pop()!], at, seen);
    const out: Array<{ at: string; schema: Schema }> = [];
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('integer') || types.includes('number')) out.push({ at, schema: s });
    for (const key of ['properties', 'patternProperties'] as const) {
      for (const [name, child] of Object.entries((s[key] ?? {}) as Record<string, unknown>))
        out.push(...numbers(child, `${at}.${name}`, seen));
    }
    for (const key of ['items', 'additionalProperties', 'not'] as const) out.push(...numbers(s[key], `${at}[]`, seen));
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
      for (const child of (s[key] ?? []) as unknown[]) out.push(...numbers(child, at, seen));
    return out;
  }

  it('gives every integer and number a client sends a maximum within a Postgres integer column', () => {
    const found: Array<{ at: string; schema: Schema }> = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) found.push(...numbers(p.schema, `${method} ${path} ${p.in}.${p.name}`));
        const body = op.requestBody?.content?.['application/json']?.schema;
        found.push(...numbers(body, `${method} ${path} body`));
      }
    }
    // The matrix is the document itself: enough request numbers that the walk is known to reach them.
    expect(found.length).toBeGreaterThan(10);
    const limit = (at: string) => (wider.has(at) ? Number.MAX_SAFE_INTEGER : maxColumnInt);
    const unbounded = found
      .filter(({ at, schema }) => typeof schema.maximum !== 'number' || schema.maximum > limit(at))
      .map(({ at }) => at);
    expect(unbounded).toEqual([]);
  });
});

describe('bodies and numbers beyond what the API takes', () => {
  const ctx = useApiContext('pglite');

  const post = (path: string, body: string) =>
    ctx.app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.tenant.token}`, 'content-type': 'application/json' },
      body,
    });

  it('refuses a body nested deeper than 32 levels with a 400 naming it, at any depth up to 100,000, on every JSON route', async () => {
    for (const path of ['/v1/applications', '/v1/test-cases', '/v1/mcp', '/v1/chat']) {
      for (const depth of [33, 2_000, 10_000, 100_000]) {
        const res = await post(path, `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`);
        expect(res.status, `${path} at ${depth}`).toBe(400);
        expect(await res.json()).toEqual({
          message: expect.stringMatching(/^body\.name(\.0)*: nested deeper than 32 levels$/),
        });
      }
    }
    // 32 levels are still read, and then judged by the route's schema.
    const res = await post('/v1/applications', `{"name":${'['.repeat(31)}${']'.repeat(31)}}`);
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/^name: /);
  });

  it('answers a steps version beyond an integer column with a 400, not a 500', async () => {
    for (const version of ['2268814451569432', '2147483648', '9'.repeat(400)]) {
      for (const verb of ['accept', 'reject']) {
        const res = await post(`/v1/test-cases/00000000-0000-4000-8000-000000000000/steps/${version}/${verb}`, '{}');
        expect(res.status, `${verb} ${version}`).toBe(400);
        expect((await res.json()).message).toMatch(/^version: /);
      }
    }
  });
});
