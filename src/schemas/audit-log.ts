import { z } from '@hono/zod-openapi';
import { pageLimit, pageOffset } from './common.js';
import { auditActorTypes, auditKinds } from '../domain/audit.js';

/** The most events one page of `GET /v1/audit-log` holds. */
export const maxAuditLogLimit = 200;

export const AuditLogQuery = z.object({
  kind: z.enum(auditKinds).optional().openapi({ description: 'Only events of this kind', example: 'sign_in.failed' }),
  since: z
    .string()
    .datetime({ offset: true })
    .optional()
    .openapi({ description: 'Only events at or after this instant (ISO 8601)', example: '2026-11-27T08:00:00Z' }),
  limit: pageLimit(maxAuditLogLimit, 50),
  offset: pageOffset(),
});

export const AuditEventSchema = z
  .object({
    kind: z.enum(auditKinds),
    actor: z.object({ type: z.enum(auditActorTypes), id: z.string().optional() }).openapi({
      description:
        'Who acted: `token` (an API token, by id), `session` (the dashboard, by the id of the token that opened it), `cli` (`proctor admin`), `system`, or `anonymous` (a failed sign-in)',
    }),
    subject: z.string().nullable().openapi({
      description: 'What it is about: a token id, an integration short id, a test case id',
      example: 'git_github_x1y2z3a4b5c6',
    }),
    details: z.record(z.string(), z.unknown()).openapi({
      description: 'Facts about the change (names, versions, fields changed); never a secret',
      example: { fields: ['token'] },
    }),
    clientAddress: z.string().nullable().openapi({ description: 'The client address of a sign-in' }),
    at: z.string().datetime(),
  })
  .openapi('AuditEvent');

export const AuditLogPage = z
  .object({
    events: z.array(AuditEventSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('AuditLog');
