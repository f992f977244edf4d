// The auth toolkit in an exported spec: a TOTP config as a getter that computes the current code from the seed
// in the environment (node:crypto, as replay does), the environment's basic auth, headers and cookies as
// `test.use` / `beforeEach`, and http_request steps over `page.request` (which shares them, as replay's does).
import type { EnvironmentAccess } from '../../domain/environment-access.js';
import type { Step } from '../../domain/steps.js';
import { quote } from '../../domain/locators.js';

export interface ExportConfig {
  value: string;
  isSecret: boolean;
  isTotp?: boolean;
}

/** One entry of the spec's `config` object. */
export function configLine(name: string, config: ExportConfig | undefined): string {
  if (config?.isTotp)
    return `  get ${name}() { return totp(process.env.${name} ?? ''); }, // TOTP seed or otpauth URI: set it in the environment`;
  const value = !config || config.isSecret ? `process.env.${name} ?? ''` : quote(config.value);
  return `  ${name}: ${value},${config?.isSecret ? ' // secret: set it in the environment' : ''}`;
}

export function authImports(configs: Record<string, ExportConfig>, used: string[]): string[] {
  return used.some((n) => configs[n]?.isTotp) ? [`import { createHmac } from 'node:crypto';`] : [];
}

/** Helpers the spec's statements call: `totp` (RFC 6238) and `jsonPath` (`$.a.b[0]`), each only when used. */
export function authHelpers(steps: Step[], configs: Record<string, ExportConfig>, used: string[]): string[] {
  const out: string[] = [];
  if (used.some((n) => configs[n]?.isTotp)) {
    out.push(
      '',
      '// RFC 6238: the code current now, from a base32 seed or an otpauth://totp/ URI.',
      'function totp(secret: string): string {',
      '  const uri = /^otpauth:/i.test(secret) ? new URL(secret) : undefined;',
      "  const seed = (uri?.searchParams.get('secret') ?? secret).replace(/[\\s=-]/g, '').toUpperCase();",
      "  const algorithm = (uri?.searchParams.get('algorithm') ?? 'SHA1').toLowerCase();",
      "  const digits = Number(uri?.searchParams.get('digits') ?? 6);",
      "  const period = Number(uri?.searchParams.get('period') ?? 30);",
      "  const bits = [...seed].map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c).toString(2).padStart(5, '0')).join('');",
      '  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));',
      '  const counter = Buffer.alloc(8);',
      '  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000 / period)));',
      '  const mac = createHmac(algorithm, key).update(counter).digest();',
      '  const offset = mac[mac.length - 1] & 15;',
      "  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');",
      '}',
    );
  }
  if (steps.some((s) => s.action === 'http_request')) {
    out.push(
      '',
      '// A simple JSON path ($.a.b[0]); values compare and save as text, as in Proctor.',
      'function jsonPath(doc: unknown, path: string): string {',
      '  let value: any = doc;',
      '  for (const m of path.slice(1).matchAll(/\\.([A-Za-z_$][\\w$-]*)|\\[(\\d+)\\]|\\["((?:[^"\\\\]|\\\\.)*)"\\]/g)) value = value?.[m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3])];',
      '  if (value === undefined) throw new Error(`the response has no ${path}`);',
      "  return typeof value === 'string' ? value : JSON.stringify(value);",
      '}',
    );
  }
  return out;
}

/** The environment's access for every test of the spec; its secrets read from the environment variables named as in redactions. */
export function accessLines(access: EnvironmentAccess | undefined): string[] {
  if (!access) return [];
  const env = (prefix: string, name: string) =>
    `process.env.${prefix}_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')} ?? ''`;
  const use: string[] = [];
  if (access.httpCredentials)
    use.push(
      `  httpCredentials: { username: ${quote(access.httpCredentials.username)}, password: process.env.HTTP_PASSWORD ?? '' }, // secret: set it in the environment`,
    );
  if (access.headers.length > 0) {
    use.push(
      `  extraHTTPHeaders: { ${access.headers.map((h) => `${quote(h.name)}: ${h.isSecret ? env('HEADER', h.name) : quote(h.value)}`).join(', ')} },`,
    );
  }
  const out = use.length > 0 ? ['', 'test.use({', ...use, '});'] : [];
  if (access.cookies.length > 0) {
    const cookies = access.cookies.map(
      (c) =>
        `{ name: ${quote(c.name)}, value: ${c.isSecret ? env('COOKIE', c.name) : quote(c.value)}, domain: new URL(baseURL).hostname, path: ${quote(c.path ?? '/')} }`,
    );
    out.push(
      '',
      'test.beforeEach(async ({ context }) => {',
      `  await context.addCookies([${cookies.join(', ')}]);`,
      '});',
    );
  }
  return out;
}

/** An http_request step as `page.request` calls (the context's cookies, credentials and headers go along). */
export function httpRequestStatement(step: Step, valueExpression: (value: string) => string): string {
  const h = step.http;
  if (!h) return `throw new Error('http_request step without a request');`;
  const headers = { ...(h.headers ?? {}) };
  if (
    h.body !== undefined &&
    !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type') &&
    /^\s*[[{]/.test(h.body)
  )
    headers['content-type'] = 'application/json';
  const headerText = Object.entries(headers)
    .map(([k, v]) => `${quote(k)}: ${valueExpression(v)}`)
    .join(', ');
  const lines = [
    `const response = await page.request.fetch(new URL(${valueExpression(h.url)}, baseURL).toString(), { method: ${quote(h.method)}, headers: { ${headerText} }${h.body !== undefined ? `, data: ${valueExpression(h.body)}` : ''}, failOnStatusCode: false });`,
    h.status !== undefined
      ? `expect(response.status()).toBe(${h.status});`
      : 'expect(response.ok(), `status ${response.status()}`).toBeTruthy();',
  ];
  if (h.json?.length || h.save?.length) lines.push('const body = await response.json();');
  for (const j of h.json ?? [])
    lines.push(`expect(jsonPath(body, ${quote(j.path)})).toBe(${valueExpression(j.equals)});`);
  for (const s of h.save ?? []) lines.push(`config.${s.name} = jsonPath(body, ${quote(s.path)});`);
  return `{ ${lines.join(' ')} }`;
}
