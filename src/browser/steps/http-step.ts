// Runs an `http_request` step through the browser context's own API client (`context.request`): it shares the
// context's cookies, the environment's basic auth and extra headers, and the context's proxy, so its requests
// pass the same SSRF guard and remote-tunnel routing as the pages (src/browser/context/egress-proxy.ts) with no second
// path to keep in step.
import type { Page } from 'playwright-core';
import { jsonText, readJsonPath, type HttpStep } from '../../domain/http-step.js';
import type { Step } from '../../domain/steps.js';
import { redact } from '../record/snapshot.js';
import type { RunValues } from '../../domain/run-values.js';

/** Every text of the step that may reference `{{NAME}}`, for the missing-config check. */
export function httpStepTexts(step: Step): string[] {
  const h = step.http;
  if (!h) return [];
  return [h.url, h.body ?? '', ...Object.values(h.headers ?? {}), ...(h.json ?? []).map((j) => j.equals)];
}

/** What a failed check says; the caller turns it into the step's failure. */
export class HttpCheckError extends Error {
  override name = 'HttpCheckError';
}

export interface HttpStepResult {
  status: number;
  /** Run variables the step saved (names only: values may be secret-derived). */
  saved: string[];
}

const maxBodyChars = 200;

export async function performHttpStep(
  page: Page,
  step: Step,
  opts: { baseUrl: string; values: RunValues; timeoutMs: number },
): Promise<HttpStepResult> {
  const h: HttpStep | undefined = step.http;
  if (!h) throw new HttpCheckError('http_request needs its request (method and url)');
  const url = new URL(opts.values.resolve(h.url), opts.baseUrl).toString();
  const headers = Object.fromEntries(Object.entries(h.headers ?? {}).map(([k, v]) => [k, opts.values.resolve(v)]));
  const body = h.body === undefined ? undefined : opts.values.resolve(h.body);
  if (
    body !== undefined &&
    !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type') &&
    looksLikeJson(body)
  )
    headers['content-type'] = 'application/json';
  const response = await page.context().request.fetch(url, {
    method: h.method,
    headers,
    ...(body !== undefined && { data: body }),
    timeout: Math.max(opts.timeoutMs, 10_000),
    failOnStatusCode: false,
  });
  const status = response.status();
  const text = await response.text().catch(() => '');
  const shown = () => redact(text.replace(/\s+/g, ' ').slice(0, maxBodyChars), opts.values.secrets());
  const where = `${h.method} ${new URL(url).pathname}`;
  if (h.status !== undefined ? status !== h.status : status < 200 || status > 299) {
    throw new HttpCheckError(
      `${where} answered ${status}, expected ${h.status ?? 'a 2xx status'}; the body was: "${shown()}"`,
    );
  }
  const checks = [...(h.json ?? []), ...(h.save ?? [])];
  let doc: unknown;
  if (checks.length > 0) {
    try {
      doc = JSON.parse(text);
    } catch {
      throw new HttpCheckError(`${where} did not answer JSON; the body was: "${shown()}"`);
    }
  }
  for (const check of h.json ?? []) {
    const expected = opts.values.resolve(check.equals);
    const found = readJsonPath(doc, check.path);
    if (!found.found)
      throw new HttpCheckError(`${where}: the response has no ${check.path}; the body was: "${shown()}"`);
    const actual = jsonText(found.value);
    if (actual !== expected)
      throw new HttpCheckError(
        `${where}: ${check.path} is "${redact(actual, opts.values.secrets())}", expected "${check.equals}"`,
      );
  }
  for (const save of h.save ?? []) {
    const found = readJsonPath(doc, save.path);
    if (!found.found)
      throw new HttpCheckError(
        `${where}: the response has no ${save.path} to save as {{${save.name}}}; the body was: "${shown()}"`,
      );
    opts.values.set(save.name, jsonText(found.value), { secret: save.secret ?? false });
  }
  return { status, saved: (h.save ?? []).map((s) => s.name) };
}

function looksLikeJson(body: string): boolean {
  const t = body.trim();
  return (t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'));
}
