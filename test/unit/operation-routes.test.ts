// The route builder (src/api/operation-routes.ts) on its own router: each operation answers the success status its
// route declares, whether it answers an object or JSON serialised earlier, with the request's parts validated and
// handed over, and a refused request answered 400 `{ message }` as every route answers it.
import { describe, expect, it } from 'vitest';
import { z } from '@hono/zod-openapi';
import type { AppDeps, ApiServices } from '../../src/api/context.js';
import { newRouter } from '../../src/api/openapi.js';
import { operation, serveResource } from '../../src/api/operation-routes.js';
import type { JsonText } from '../../src/db/queries/project-lists.js';
import { silentLogger } from '../../src/logger.js';

const Echo = z.object({ said: z.string() });
const Params = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });
const base = { tags: ['Test'], summary: 'a test route', answers: Echo, answer: 'The echo' };
const statuses = [200, 201, 202] as const;

const routes = {
  object200: operation({ ...base, method: 'post', path: '/object/200', body: Echo }),
  object201: operation({ ...base, method: 'post', path: '/object/201', body: Echo, status: 201 }),
  object202: operation({ ...base, method: 'post', path: '/object/202', body: Echo, status: 202 }),
  text200: operation({ ...base, method: 'post', path: '/text/200', body: Echo }),
  text201: operation({ ...base, method: 'post', path: '/text/201', body: Echo, status: 201 }),
  text202: operation({ ...base, method: 'post', path: '/text/202', body: Echo, status: 202 }),
  optional: operation({ ...base, method: 'post', path: '/optional', body: Echo, optionalBody: true }),
  parts: operation({
    ...base,
    method: 'get',
    path: '/parts/{id}',
    params: Params,
    query: z.object({ n: z.coerce.number().int().max(10) }),
    headers: z.object({ 'x-word': z.string() }),
  }),
  refusing: operation({
    ...base,
    method: 'delete',
    path: '/refusing',
    conflict: 'in use',
    overBudget: 'spent',
    unavailable: 'down',
  }),
};

const app = newRouter();
app.use('*', async (c, next) => {
  c.set('caller', { projectId: 'project-1', organizationId: 'org-1', tokenId: 'token-1' });
  c.set('services', {} as ApiServices);
  c.set('deps', {} as AppDeps);
  c.set('logger', silentLogger);
  await next();
});
serveResource(app, routes, {
  object200: async ({ body }) => body,
  object201: async ({ body }) => body,
  object202: async ({ body }) => body,
  text200: async ({ body }) => JSON.stringify(body) as JsonText<{ said: string }>,
  text201: async ({ body }) => JSON.stringify(body) as JsonText<{ said: string }>,
  text202: async ({ body }) => JSON.stringify(body) as JsonText<{ said: string }>,
  optional: async ({ body }) => ({ said: body === undefined ? 'no body' : body.said }),
  parts: async ({ param, query, headers, projectId }) => ({
    said: `${param.id} ${query.n} ${headers['x-word']} ${projectId}`,
  }),
  refusing: async () => ({ said: 'deleted' }),
});

const post = (path: string, body?: unknown) =>
  app.request(path, {
    method: 'POST',
    ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });

describe('operation routes', () => {
  for (const kind of ['object', 'text'] as const) {
    for (const status of statuses) {
      it(`answered as ${kind}: sent as JSON with the route's ${status}`, async () => {
        const res = await post(`/${kind}/${status}`, { said: `${kind} ${status}` });
        expect(res.status).toBe(status);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ said: `${kind} ${status}` });
      });
    }
  }

  it('declares one success status per route, the one it answers', () => {
    for (const status of statuses) {
      const declared = Object.keys(routes[`object${status}`].responses).filter((code) => code.startsWith('2'));
      expect(declared).toEqual([String(status)]);
    }
  });

  it('an optional body may be left out (undefined) or sent (validated)', async () => {
    expect(await (await post('/optional')).json()).toEqual({ said: 'no body' });
    expect(await (await post('/optional', { said: 'hello' })).json()).toEqual({ said: 'hello' });
    const refused = await post('/optional', { said: 5 });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ message: expect.stringMatching(/^said: /) });
  });

  it('hands over the validated path parameters, query and headers, and the caller project', async () => {
    const res = await app.request('/parts/abc?n=7', { headers: { 'x-word': 'hi' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ said: 'abc 7 hi project-1' });
  });

  it.each([
    ['a query beyond its bound', '/parts/abc?n=11', { 'x-word': 'hi' }, /^n: /],
    ['a missing header', '/parts/abc?n=1', {}, /^x-word: /],
  ])('refuses %s with 400 { message } naming it', async (_what, path, headers, field) => {
    const res = await app.request(path, { headers });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string };
    expect(Object.keys(body)).toEqual(['message']);
    expect(body.message).toMatch(field);
  });

  it('documents the refusals a route names (409, 429, 503) and only those, beside the standard errors', () => {
    const codes = (route: { responses: object }) => Object.keys(route.responses);
    const standard = ['400', '401', '403', '404', '413', '415', '500'];
    expect(codes(routes.refusing).sort()).toEqual(['200', '409', '429', '503', ...standard].sort());
    expect(codes(routes.parts).sort()).toEqual(['200', ...standard].sort());
  });
});
