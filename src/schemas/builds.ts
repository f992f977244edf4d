import { z } from '@hono/zod-openapi';
import { ApplicationParams } from './applications.js';
import { pathParams, shortId } from './common.js';

// Shapes of the mobile build routes (src/api/routes/builds.ts); the upload request stays there, as it names the
// file types the build adapter reads.

export const BuildSchema = z
  .object({
    applicationBuildShortId: shortId('build'),
    platform: z.enum(['ios', 'android']),
    fileName: z.string().openapi({ example: 'shop-1.4.2.apk' }),
    fileSizeBytes: z.number().int().openapi({ example: 48_213_504 }),
    createdAt: z.string().datetime(),
  })
  .openapi('ApplicationBuild');

export const BuildParams = ApplicationParams.extend(pathParams({ applicationBuildShortId: shortId('build') }).shape);

export const UploadUrlResponse = z
  .object({
    uploadUrl: z.string().url().openapi({
      description: 'PUT the file here (Content-Type: application/octet-stream) right away: it expires quickly',
    }),
    buildToken: z
      .string()
      .openapi({ description: 'One-time: pass it to POST …/builds once the upload finished', example: 'pbt_q3Xn…' }),
  })
  .openapi('BuildUploadUrl');

export const CreateBuild = z
  .object({ platform: z.enum(['ios', 'android']), buildToken: z.string().min(1).max(200) })
  .openapi('CreateApplicationBuild');
