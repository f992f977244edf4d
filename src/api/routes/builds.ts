import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { shortId } from '../../schemas/common.js';
import { requireApplication } from '../../services/applications.js';
import {
  createBuildUpload,
  getApplicationBuild,
  listApplicationBuilds,
  registerBuild,
  supportedBuildExtensions,
} from '../../services/builds.js';

const tags = ['Builds'];
const base = '/v1/applications/{applicationShortId}/builds';

export const BuildSchema = z
  .object({
    applicationBuildShortId: shortId('build'),
    platform: z.enum(['ios', 'android']),
    fileName: z.string().openapi({ example: 'shop-1.4.2.apk' }),
    fileSizeBytes: z.number().int().openapi({ example: 48_213_504 }),
    createdAt: z.string().datetime(),
  })
  .openapi('ApplicationBuild');

const AppParams = z.object({
  applicationShortId: shortId('application').openapi({ param: { name: 'applicationShortId', in: 'path' } }),
});
const BuildParams = AppParams.extend({
  applicationBuildShortId: shortId('build').openapi({ param: { name: 'applicationBuildShortId', in: 'path' } }),
});

const UploadUrlRequest = z
  .object({
    fileName: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .openapi({
        example: 'shop-1.4.2.apk',
        description: `Shown in the dashboard and decides the file type: ${supportedBuildExtensions.join(', ')}`,
      }),
    fileSize: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({
        example: 48_213_504,
        description:
          "Extension to the spec: the file's exact size in bytes. A size over PROCTOR_BUILD_MAX_BYTES is a 400 at once; otherwise the URL " +
          'accepts a PUT of exactly this Content-Length and the storage itself (S3/MinIO or the filesystem store) refuses any other with a 403. ' +
          'Without it, S3/MinIO cannot bound the upload and an oversize file is refused when the build is created.',
      }),
  })
  .openapi('BuildUploadUrlRequest');

const UploadUrlResponse = z
  .object({
    uploadUrl: z.string().url().openapi({
      description: 'PUT the file here (Content-Type: application/octet-stream) right away: it expires quickly',
    }),
    buildToken: z
      .string()
      .openapi({ description: 'One-time: pass it to POST …/builds once the upload finished', example: 'pbt_q3Xn…' }),
  })
  .openapi('BuildUploadUrl');

const CreateBuild = z
  .object({ platform: z.enum(['ios', 'android']), buildToken: z.string().min(1).max(200) })
  .openapi('CreateApplicationBuild');

const routes = {
  uploadUrl: createRoute({
    method: 'post',
    path: `${base}/upload-url`,
    tags,
    security: bearerSecurity,
    summary: 'Get a presigned URL to upload a mobile build',
    description:
      'Step 1 of 2. The type comes from `fileName` (.apk, .aab, .ipa, or a simulator .app zipped as .zip/.tar.gz); a web application, or a ' +
      'file of the other platform, is a 400. The URL accepts one PUT of at most PROCTOR_BUILD_MAX_BYTES (default 4 GiB) until it expires ' +
      '(PROCTOR_BUILD_UPLOAD_TTL_SECONDS, default 600); with `fileSize`, of exactly that many bytes.',
    request: { params: AppParams, body: jsonBody(UploadUrlRequest) },
    responses: {
      200: json(UploadUrlResponse, 'Where to PUT the file, and the token that names the upload'),
      ...errorResponses,
    },
  }),
  create: createRoute({
    method: 'post',
    path: base,
    tags,
    security: bearerSecurity,
    summary: 'Create the build record of an uploaded file',
    description:
      'Step 2 of 2. The token is one-time. The file must have been uploaded and must be what its name says (AndroidManifest.xml for .apk, ' +
      'BundleConfig.pb for .aab, Payload/<name>.app/Info.plist for .ipa, <name>.app/Info.plist for a zipped simulator app); otherwise 400 ' +
      'and the file is deleted. Use the build as `environment.applicationBuildShortId` in a run request.',
    request: { params: AppParams, body: jsonBody(CreateBuild) },
    responses: { 200: json(BuildSchema, 'The build'), ...errorResponses },
  }),
  list: createRoute({
    method: 'get',
    path: base,
    tags,
    security: bearerSecurity,
    summary: "List an application's builds, newest first",
    request: { params: AppParams },
    responses: { 200: json(z.object({ builds: z.array(BuildSchema) }), 'Builds'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get',
    path: `${base}/{applicationBuildShortId}`,
    tags,
    security: bearerSecurity,
    summary: 'Get a build',
    request: { params: BuildParams },
    responses: { 200: json(BuildSchema, 'The build'), ...errorResponses },
  }),
};

export function registerBuilds(app: OpenApiApp): void {
  app.openapi(routes.uploadUrl, async (c) => {
    const services = c.get('services');
    const { projectId } = c.get('caller');
    const application = await requireApplication(services, projectId, c.req.valid('param').applicationShortId);
    const { fileName, fileSize } = c.req.valid('json');
    const upload = await createBuildUpload(services, { projectId, application, fileName, fileSize });
    return c.json(upload, 200);
  });

  app.openapi(routes.create, async (c) => {
    const services = c.get('services');
    const { projectId } = c.get('caller');
    const application = await requireApplication(services, projectId, c.req.valid('param').applicationShortId);
    const body = c.req.valid('json');
    const build = await registerBuild(services, {
      projectId,
      application,
      platform: body.platform,
      buildToken: body.buildToken,
    });
    return c.json(build, 200);
  });

  app.openapi(routes.list, async (c) => {
    const { projectId } = c.get('caller');
    const application = await requireApplication(c.get('services'), projectId, c.req.valid('param').applicationShortId);
    return c.json({ builds: await listApplicationBuilds(c.get('services'), projectId, application.id) }, 200);
  });

  app.openapi(routes.get, async (c) => {
    const { projectId } = c.get('caller');
    const params = c.req.valid('param');
    const application = await requireApplication(c.get('services'), projectId, params.applicationShortId);
    return c.json(
      await getApplicationBuild(c.get('services'), projectId, application.id, params.applicationBuildShortId),
      200,
    );
  });
}
