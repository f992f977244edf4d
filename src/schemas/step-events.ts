import { maxIntColumn } from './common.js';
import { z } from '@hono/zod-openapi';
import { dialogTypes } from '../domain/step-events.js';

// The parts of a step about tabs, dialogs and downloads (src/domain/step-events.ts), as the API shows them.

export const stepEventFields = {
  page: z.number().int().min(0).max(1_000).optional().openapi({
    description: 'The tab the step acts on: 0 (or absent) the first page, then pages in the order they opened',
  }),
  opensPage: z
    .boolean()
    .optional()
    .openapi({ description: 'The step opens a tab or popup (later steps act on it); replay fails when none opens' }),
  dialogs: z
    .array(
      z.object({
        type: z.enum(dialogTypes),
        message: z.string(),
        accept: z.boolean(),
        promptText: z.string().optional(),
      }),
    )
    .optional()
    .openapi({
      description:
        'Dialogs the step opens, in order, with the recorded answer; replay fails when one does not open or says something else',
    }),
  download: z
    .object({
      fileNamePattern: z.string(),
      minBytes: z.number().int().min(0).max(maxIntColumn),
      maxBytes: z.number().int().min(0).max(maxIntColumn),
      type: z.string().openapi({ example: 'pdf' }),
    })
    .optional()
    .openapi({
      description:
        'The file the step downloads: its name must match the pattern, its size the bounds and its bytes the type (an empty file fails)',
    }),
  projectFile: z.boolean().optional().openapi({
    description: '`upload`: `value` names a project file (POST /v1/files) to send instead of a generated file',
  }),
};
