import { expect } from 'vitest';
import type { ApiContext } from './app-context.js';

/**
 * Every item route of a resource (GET, PATCH, DELETE under `path`) answers 404 with `message` for each id that is
 * well formed but unknown, and 400 naming the path parameter `param` for a malformed one (GET and DELETE).
 */
export async function expectUnknownAndMalformedIds(
  ctx: ApiContext,
  resource: { path: string; unknown: string[]; malformed: string; message: string; param: string; patch: object },
): Promise<void> {
  for (const id of resource.unknown) {
    for (const [method, body] of [['GET'], ['PATCH', resource.patch], ['DELETE']] as const) {
      const res = await ctx.call(method, `${resource.path}/${id}`, body);
      expect(res.status, `${method} ${id}`).toBe(404);
      expect(res.body.message).toBe(resource.message);
    }
  }
  for (const method of ['GET', 'DELETE']) {
    const malformed = await ctx.call(method, `${resource.path}/${resource.malformed}`);
    expect(malformed.status, method).toBe(400);
    expect(malformed.body.message).toMatch(resource.param);
  }
}

/**
 * Another project's item is out of the caller's reach: GET, each PATCH of `patches` and DELETE of `path`/`shortId`
 * answer 404 with `message` and nothing else, so nothing of the item shows. Returns the item as its own project
 * still reads it (the refused PATCHes and DELETE changed nothing).
 */
export async function expectHiddenFromCaller(
  ctx: ApiContext,
  item: { path: string; shortId: string; message: string; patches: object[] },
): Promise<any> {
  const url = `${item.path}/${item.shortId}`;
  const attempts: [string, object?][] = [
    ['GET'],
    ...item.patches.map((p): [string, object] => ['PATCH', p]),
    ['DELETE'],
  ];
  for (const [method, body] of attempts) {
    const res = await ctx.call(method, url, body);
    expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(404);
    expect(res.body).toEqual({ message: item.message });
  }
  return (await ctx.call('GET', url, undefined, ctx.other.token)).body;
}
