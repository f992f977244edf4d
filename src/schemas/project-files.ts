import { z } from '@hono/zod-openapi';

// A project file's name is how a step names it, and part of its blob key: plain file-name characters only.
const namePattern = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';

export const ProjectFileName = z
  .string()
  .regex(
    new RegExp(namePattern),
    'letters, digits, dot, dash and underscore, starting with a letter or digit, at most 100',
  )
  .openapi({ pattern: namePattern, example: 'receipt.pdf' });

export const ProjectFileSchema = z
  .object({
    name: z.string().openapi({ example: 'receipt.pdf' }),
    size: z.number().int().openapi({ description: 'Bytes' }),
    type: z.string().openapi({
      description: 'Read from the bytes: pdf, png, jpeg, gif, zip, csv, json, text or binary',
      example: 'pdf',
    }),
    mimeType: z.string().openapi({ example: 'application/pdf' }),
    createdAt: z.string().datetime(),
  })
  .openapi('ProjectFile');

export const UploadProjectFile = z
  .object({
    name: ProjectFileName,
    contentBase64: z
      .string()
      .min(1)
      .max(1_000_000)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64')
      .openapi({ description: "The file's bytes, base64 (at most 700 KiB of file)" }),
  })
  .openapi('UploadProjectFile');
