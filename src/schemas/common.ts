import { z } from '@hono/zod-openapi';
import { shortIdPattern, type ShortIdKind } from '../domain/short-ids.js';

/** A refusal naming the fields, as every 400 of the API and every refused tool call words it. */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

const examples: Record<ShortIdKind, string> = {
  application: 'app-shop_k3x9q2m7p1za',
  environment: 'env-staging_8d2kq0x1mzpa',
  devicePreset: 'preset-iphone_0p2kdm3x9q1a',
  build: 'build_x8q2m1k0z9pa',
  chat: 'chat_3k9x0q2m1pza',
  testPlan: 'pln-smoke_q2m1k3x9z0pa',
  config: 'cfg_m1k3x9q2z0pa',
  scenario: 'scenario_k3x9q2m1z0pa',
  run: 'run_9q2m1k3xz0pa',
  gitIntegration: 'git_k3x9q2m1z0pa',
  discovery: 'disc_x9q2m1k3z0pa',
};

/**
 * The spec's short-id pattern with `.` spelled out as "any character but a line terminator", which is what
 * it means in JavaScript (and JSON Schema); Python's `.` also matches `\r`, so a client validating with the
 * spec's spelling there would send ids this server refuses. NUL is excluded too, as everywhere in the API.
 * The same string validates and documents.
 */
export function shortIdDocPattern(kind: ShortIdKind): string {
  return shortIdPattern(kind).replaceAll('.', '[^\\u0000\\r\\n\\u2028\\u2029]');
}

/** A short id of the given kind, validated against the spec's pattern and documented with it. */
export const shortId = (kind: ShortIdKind) =>
  z
    .string()
    .regex(new RegExp(shortIdDocPattern(kind)), `must be a ${kind} short id matching ${shortIdPattern(kind)}`)
    .openapi({ pattern: shortIdDocPattern(kind), example: examples[kind] });

// http(s), optional user:password@ (staging sites behind basic auth), a host a URL parser takes (a name whose
// last label starts with a letter or `_`, with `_` allowed as URL parsers and preview hosts have it; or an IPv4
// address), an optional port, then path, query and fragment in RFC 3986 characters (anything else percent-encoded), so `format: uri` and the pattern agree. Letter cases
// are spelled out: JSON Schema patterns have no flags.
const octet = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const port = '([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';
const host = `(([A-Za-z0-9_-]+\\.)*[A-Za-z_][A-Za-z0-9_-]*|(${octet}\\.){3}${octet})`;
const pctEncoded = '%[0-9A-Fa-f]{2}';
const pchar = `([A-Za-z0-9._~!$&'()*+,;=:@-]|${pctEncoded})`;
const userinfo = `([A-Za-z0-9._~!$&'()*+,;=:-]|${pctEncoded})+@`;
const httpUrlPattern =
  `^[Hh][Tt][Tt][Pp][Ss]?://(${userinfo})?${host}(:${port})?` +
  `(/${pchar}*)*` +
  `(\\?(${pchar}|[/?])*)?` +
  `(#(${pchar}|[/?])*)?$`;

/** An absolute http(s) URL: other schemes (file:, javascript:, ftp:) and hostless URLs are refused, and the document says so. */
export const httpUrl = () =>
  z
    .string()
    .url()
    .regex(new RegExp(httpUrlPattern), 'must be an http(s) URL')
    .openapi({ pattern: httpUrlPattern, format: 'uri' });

/**
 * Path parameters, each documented as the parameter of the path its key names, so the name is written once:
 * `pathParams({ scenarioShortId: shortId('scenario') })` for `/v1/scenarios/{scenarioShortId}`.
 */
export function pathParams<Shape extends Record<string, z.ZodType>>(shape: Shape) {
  const documented = Object.entries(shape).map(([name, schema]) => [
    name,
    schema.openapi({ param: { name, in: 'path' } }),
  ]);
  return z.object(Object.fromEntries(documented) as Shape);
}

export const uuid = () => z.string().uuid().openapi({ example: '3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b' });

/** Paging deeper than this is a client bug, and an OFFSET near 2^63 is not something to hand Postgres. */
export const maxOffset = 1_000_000;

// A page of a list: `limit` and `offset` query parameters. The explicit types: coercion turns null into 0, which
// the document generator would otherwise call nullable.

/** How many entries one page holds: 1 to `max`, `fallback` when absent. */
export const pageLimit = (max: number, fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .openapi({ type: 'integer', minimum: 1, maximum: max, default: fallback });

/** How many entries to skip: 0 to maxOffset, 0 when absent. */
export const pageOffset = () =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(maxOffset)
    .default(0)
    .openapi({ type: 'integer', minimum: 0, maximum: maxOffset, default: 0 });

/** The largest value of a Postgres `integer` column (a steps version): beyond it a comparison fails in Postgres, not here. */
export const maxIntColumn = 2_147_483_647;

export const name = (max = 120) => z.string().trim().min(1).max(max);

export const Deleted = z.object({ deleted: z.literal(true) }).openapi('Deleted');

/** A Git provider Proctor connects to. */
export const gitProvider = () => z.enum(['github', 'gitlab']).openapi({ example: 'github' });

/** A repository as its provider names it: `owner/name` on GitHub, the project path on GitLab. */
export const repositoryPath = () =>
  z
    .string()
    .min(3)
    .max(300)
    .regex(
      /^[^\s/]+(\/[^\s/]+)+$/,
      'repository must be `owner/name` (GitHub) or the project path `group/project` (GitLab)',
    )
    .openapi({ example: 'acme/shop', description: '`owner/name` on GitHub; the project path on GitLab' });
