import { z } from '@hono/zod-openapi';
import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { resource } from '../resource-routes.js';
import { ApplicationParams } from '../../schemas/applications.js';
import { BuildParams, BuildSchema, CreateBuild, UploadUrlResponse } from '../../schemas/builds.js';
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
const builds = resource({
  path: `${base}/{applicationBuildShortId}`,
  tags,
  noun: ['a build', 'builds'],
  schema: BuildSchema,
  params: BuildParams,
  parentParams: ApplicationParams,
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

const routes = {
  uploadUrl: operation({
    method: 'post',
    path: `${base}/upload-url`,
    tags,
    summary: 'Get a presigned URL to upload a mobile build',
    description:
      'Step 1 of 2. The type comes from `fileName` (.apk, .aab, .ipa, or a simulator .app zipped as .zip/.tar.gz); a web application, or a ' +
      'file of the other platform, is a 400. The URL accepts one PUT of at most PROCTOR_BUILD_MAX_BYTES (default 4 GiB) until it expires ' +
      '(PROCTOR_BUILD_UPLOAD_TTL_SECONDS, default 600); with `fileSize`, of exactly that many bytes.',
    params: ApplicationParams,
    body: UploadUrlRequest,
    answers: UploadUrlResponse,
    answer: 'Where to PUT the file, and the token that names the upload',
  }),
  // Answers 200, not the 201 of resource().create: the status is part of the contract.
  create: operation({
    method: 'post',
    path: base,
    tags,
    summary: 'Create the build record of an uploaded file',
    description:
      'Step 2 of 2. The token is one-time. The file must have been uploaded and must be what its name says (AndroidManifest.xml for .apk, ' +
      'BundleConfig.pb for .aab, Payload/<name>.app/Info.plist for .ipa, <name>.app/Info.plist for a zipped simulator app); otherwise 400 ' +
      'and the file is deleted. Use the build as `environment.applicationBuildShortId` in a run request.',
    params: ApplicationParams,
    body: CreateBuild,
    answers: BuildSchema,
    answer: 'The build',
  }),
  list: builds.list('builds', { summary: "List an application's builds, newest first", answer: 'Builds' }),
  get: builds.get(),
};

export function registerBuilds(app: OpenApiApp): void {
  serveResource(app, routes, {
    uploadUrl: async ({ services, projectId, param, body: { fileName, fileSize } }) => {
      const application = await requireApplication(services, projectId, param.applicationShortId);
      return createBuildUpload(services, { projectId, application, fileName, fileSize });
    },
    create: async ({ services, projectId, param, body }) => {
      const application = await requireApplication(services, projectId, param.applicationShortId);
      return registerBuild(services, { projectId, application, platform: body.platform, buildToken: body.buildToken });
    },
    list: async ({ services, projectId, param }) => {
      const application = await requireApplication(services, projectId, param.applicationShortId);
      return { builds: await listApplicationBuilds(services, projectId, application.id) };
    },
    get: async ({ services, projectId, param }) => {
      const application = await requireApplication(services, projectId, param.applicationShortId);
      return getApplicationBuild(services, projectId, application.id, param.applicationBuildShortId);
    },
  });
}
