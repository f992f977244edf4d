// What an environment needs before its pages open: HTTP basic auth, extra headers (a preview deployment's
// protection-bypass header) and preset cookies. Applied to every browser context of a burn-in and a replay on the
// environment, and to its http_request steps. Secrets among them are write-only, like secret configs.

export interface AccessHeader {
  name: string;
  value: string;
  isSecret: boolean;
}

export interface AccessCookie {
  name: string;
  value: string;
  /** Defaults to `/`; the cookie's domain is always the environment's host. */
  path?: string;
  isSecret: boolean;
}

export interface EnvironmentAccess {
  /** The password is always secret. */
  httpCredentials?: { username: string; password: string };
  headers: AccessHeader[];
  cookies: AccessCookie[];
}

/** As the API returns it: a secret's value is null, so it can never leak through a read. */
export interface EnvironmentAccessView {
  httpCredentials: { username: string; hasPassword: boolean } | null;
  headers: Array<{ name: string; value: string | null; isSecret: boolean }>;
  cookies: Array<{ name: string; value: string | null; path: string; isSecret: boolean }>;
}

/** What a client sends: a secret entry without a value keeps the value stored under its name. */
export interface EnvironmentAccessInput {
  httpCredentials?: { username: string; password?: string } | null;
  headers?: Array<{ name: string; value?: string; isSecret?: boolean }>;
  cookies?: Array<{ name: string; value?: string; path?: string; isSecret?: boolean }>;
}

export const noAccess: EnvironmentAccess = { headers: [], cookies: [] };

export function accessView(access: EnvironmentAccess | null): EnvironmentAccessView {
  const a = access ?? noAccess;
  return {
    httpCredentials: a.httpCredentials
      ? { username: a.httpCredentials.username, hasPassword: a.httpCredentials.password.length > 0 }
      : null,
    headers: a.headers.map((h) => ({ name: h.name, value: h.isSecret ? null : h.value, isSecret: h.isSecret })),
    cookies: a.cookies.map((c) => ({
      name: c.name,
      value: c.isSecret ? null : c.value,
      path: c.path ?? '/',
      isSecret: c.isSecret,
    })),
  };
}

/**
 * A kept value keeps its secrecy: an entry that leaves out the value (or `isSecret`) of a stored secret must not
 * turn it into plain text that every read then returns. Only a new value may be written as not secret.
 */
const stillSecret = (given: boolean | undefined, kept: { isSecret: boolean } | undefined): boolean =>
  kept?.isSecret ? true : (given ?? false);

/**
 * The access after a write: each list given replaces the stored one; an entry without a value takes the stored
 * value of the same name (so a client can edit one header without knowing the secret of another). Returns the
 * problem as text when an entry has no value to keep.
 */
export function mergeAccess(
  stored: EnvironmentAccess | null,
  input: EnvironmentAccessInput,
): EnvironmentAccess | string {
  const old = stored ?? noAccess;
  let httpCredentials = old.httpCredentials;
  if (input.httpCredentials === null) httpCredentials = undefined;
  else if (input.httpCredentials) {
    const password = input.httpCredentials.password ?? old.httpCredentials?.password;
    if (password === undefined) return 'httpCredentials.password: required when setting credentials for the first time';
    httpCredentials = { username: input.httpCredentials.username, password };
  }
  const headers: AccessHeader[] = [];
  for (const h of input.headers ?? old.headers) {
    const kept =
      h.value === undefined ? old.headers.find((o) => o.name.toLowerCase() === h.name.toLowerCase()) : undefined;
    const value = h.value ?? kept?.value;
    if (value === undefined) return `headers: "${h.name}" needs a value`;
    headers.push({ name: h.name, value, isSecret: stillSecret(h.isSecret, kept) });
  }
  const cookies: AccessCookie[] = [];
  for (const c of input.cookies ?? old.cookies) {
    const kept = c.value === undefined ? old.cookies.find((o) => o.name === c.name) : undefined;
    const value = c.value ?? kept?.value;
    if (value === undefined) return `cookies: "${c.name}" needs a value`;
    cookies.push({ name: c.name, value, ...(c.path && { path: c.path }), isSecret: stillSecret(c.isSecret, kept) });
  }
  return { ...(httpCredentials && { httpCredentials }), headers, cookies };
}

/** Secret values by a readable name, for redaction from everything the model or a log sees. */
export function accessSecrets(access: EnvironmentAccess | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!access) return out;
  if (access.httpCredentials) out.HTTP_PASSWORD = access.httpCredentials.password;
  for (const h of access.headers)
    if (h.isSecret) out[`HEADER_${h.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] = h.value;
  for (const c of access.cookies)
    if (c.isSecret) out[`COOKIE_${c.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] = c.value;
  return out;
}

/** The access with every secret value blank: what may leave the server (an exported spec reads them from its environment). */
export function blankSecrets(access: EnvironmentAccess): EnvironmentAccess {
  return {
    ...(access.httpCredentials && { httpCredentials: { username: access.httpCredentials.username, password: '' } }),
    headers: access.headers.map((h) => (h.isSecret ? { ...h, value: '' } : h)),
    cookies: access.cookies.map((c) => (c.isSecret ? { ...c, value: '' } : c)),
  };
}
