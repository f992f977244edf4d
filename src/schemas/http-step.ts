import { z } from '@hono/zod-openapi';
import { httpMethods } from '../domain/http-step.js';

/**
 * An `http_request` step's call as the API shows and takes it (`HttpStep` in src/domain/http-step.ts). Without it
 * in the step schema, an edit of the steps (PUT /v1/test-cases/{id}/steps) dropped the call and its checks.
 */
export const HttpStepSchema = z
  .object({
    method: z.enum(httpMethods),
    url: z.string().min(1).max(4_000).openapi({
      description: 'Relative to the environment URL (`/api/notes`), or absolute; may reference `{{NAME}}`',
    }),
    headers: z.record(z.string(), z.string().max(8_000)).optional().openapi({
      description: 'Request headers; values may reference `{{NAME}}` (a token is never stored in the step)',
    }),
    body: z.string().max(100_000).optional().openapi({
      description: 'Sent as is; JSON gets `content-type: application/json` unless a header says otherwise',
    }),
    status: z
      .number()
      .int()
      .min(100)
      .max(599)
      .optional()
      .openapi({ description: 'The status the response must have; absent: any 2xx' }),
    json: z
      .array(z.object({ path: z.string().max(500), equals: z.string().max(10_000) }))
      .max(50)
      .optional()
      .openapi({
        description: 'JSON values the response must hold',
        example: [{ path: '$.items[0].name', equals: 'Milk' }],
      }),
    save: z
      .array(
        z.object({
          name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name: letters, digits, _'),
          path: z.string().max(500),
          secret: z.boolean().optional(),
        }),
      )
      .max(50)
      .optional()
      .openapi({
        description:
          'Run variables set from the response (`{{NAME}}` in later steps); a `secret` one is redacted like a secret config',
      }),
  })
  .openapi('HttpStep');
