// An environment's access (basic auth, extra headers, preset cookies) as browser-context settings: basic auth is
// answered for the environment's origin only, cookies are set on its host; the headers go with every request of
// the context (Playwright's extraHTTPHeaders), which is how a deployment-protection bypass header works.
import type { EnvironmentAccess } from '../../domain/environment-access.js';

export interface ContextAccess {
  httpCredentials?: { username: string; password: string; origin: string };
  extraHTTPHeaders?: Record<string, string>;
  cookies?: Array<{ name: string; value: string; domain: string; path: string; secure: boolean }>;
}

export function contextAccess(access: EnvironmentAccess | null, baseUrl: string): ContextAccess | undefined {
  if (!access) return undefined;
  const url = new URL(baseUrl);
  const out: ContextAccess = {};
  if (access.httpCredentials) out.httpCredentials = { ...access.httpCredentials, origin: url.origin };
  if (access.headers.length > 0)
    out.extraHTTPHeaders = Object.fromEntries(access.headers.map((h) => [h.name, h.value]));
  if (access.cookies.length > 0) {
    out.cookies = access.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: url.hostname,
      path: c.path ?? '/',
      secure: url.protocol === 'https:',
    }));
  }
  return out;
}
