import type { Context, Hono } from 'hono';
import type { WebEnv } from './context.js';
import { notFoundPage } from './layout.js';

type Handler<T> = (c: Context<WebEnv>, found: T) => Response | Promise<Response>;

/**
 * The routes about one thing of the session's project (a config, an environment): `load` finds it from the request
 * (undefined when it does not exist or is another project's) and each route runs with it; where it is not found the
 * answer is the not-found page naming `what` ("This config").
 *
 *     const config = routesAbout(web, load, 'This config');
 *     config.get('/configs/:config/edit', (c, found) => show(c, found));
 */
export function routesAbout<T>(web: Hono<WebEnv>, load: (c: Context<WebEnv>) => Promise<T | undefined>, what: string) {
  const withFound = (handle: Handler<T>) => async (c: Context<WebEnv>) => {
    const found = await load(c);
    return found === undefined ? notFoundPage(c, what) : handle(c, found);
  };
  return {
    get: (path: string, handle: Handler<T>) => web.get(path, withFound(handle)),
    post: (path: string, handle: Handler<T>) => web.post(path, withFound(handle)),
  };
}
