import { z } from '@hono/zod-openapi';

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "a header name: letters, digits and !#$%&'*+.^_`|~-");
const cookieName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "a cookie name: letters, digits and !#$%&'*+.^_`|~-");

export const EnvironmentAccessSchema = z
  .object({
    httpCredentials: z.object({ username: z.string(), hasPassword: z.boolean() }).nullable(),
    headers: z.array(z.object({ name: z.string(), value: z.string().nullable(), isSecret: z.boolean() })),
    cookies: z.array(
      z.object({ name: z.string(), value: z.string().nullable(), path: z.string(), isSecret: z.boolean() }),
    ),
  })
  .openapi('EnvironmentAccess', {
    description:
      'Applied to every page and http_request step on the environment; secret values are write-only (null here)',
  });

export const EnvironmentAccessInputSchema = z
  .object({
    httpCredentials: z
      .object({
        username: z.string().min(1).max(200),
        password: z.string().max(500).optional().openapi({ description: 'Write-only; omit to keep the stored one' }),
      })
      .nullable()
      .optional()
      .openapi({ description: 'HTTP basic auth for the environment origin; null removes it' }),
    headers: z
      .array(z.object({ name: headerName, value: z.string().max(4000).optional(), isSecret: z.boolean().optional() }))
      .max(20)
      .optional()
      .openapi({
        description: 'Replaces the extra headers; an entry without a value keeps the stored value of that name',
        example: [{ name: 'x-vercel-protection-bypass', value: 's3cret', isSecret: true }],
      }),
    cookies: z
      .array(
        z.object({
          name: cookieName,
          value: z.string().max(4000).optional(),
          path: z.string().startsWith('/').max(200).optional(),
          isSecret: z.boolean().optional(),
        }),
      )
      .max(20)
      .optional()
      .openapi({
        description:
          "Replaces the preset cookies (set on the environment's host); an entry without a value keeps the stored value",
      }),
  })
  .strict()
  .openapi('EnvironmentAccessInput');
