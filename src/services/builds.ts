import { randomBytes } from 'node:crypto';
import type { ApplicationKind } from '../db/schema.js';
import {
  buildView,
  consumeBuildUpload,
  findBuild,
  findBuildUpload,
  insertBuild,
  insertBuildUpload,
  listBuilds,
  type BuildView,
} from '../db/queries/builds.js';
import {
  buildFileType,
  isBuildFileType,
  platformOfType,
  supportedBuildExtensions,
  type BuildPlatform,
} from '../builds/file-types.js';
import { inspectBuild } from '../builds/inspect.js';
import { hashToken, newId } from '../ids.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';

/** The file name extensions a build may have (the upload route documents them). */
export { supportedBuildExtensions };

interface Application {
  id: string;
  kind: ApplicationKind;
}

// A token outlives its URL, so a 4 GiB upload that started in time can still be registered when it ends.
const TOKEN_LIFETIME_MS = 24 * 3600 * 1000;

/**
 * Step 1 of the two-step upload: where to PUT the file, and the token that later names the upload.
 *
 * The build token is random and only its SHA-256 is stored, like API tokens: it has to be one-time, which
 * needs a row whose use is recorded anyway, so a signed self-contained value would buy nothing; and a
 * leaked database copy cannot be replayed to register someone's upload.
 */
export async function createBuildUpload(
  deps: ServiceContext<'blobs' | 'builds'>,
  input: { projectId: string; application: Application; fileName: string; fileSize?: number },
): Promise<{ uploadUrl: string; buildToken: string }> {
  const detected = buildFileType(input.fileName);
  if (!detected) {
    throw new InvalidError(
      `fileName: unsupported build file type; use one of ${supportedBuildExtensions.join(', ')} (a simulator .app zipped as .zip or .tar.gz)`,
    );
  }
  if (input.application.kind === 'web')
    throw new InvalidError('this is a web application: builds are for ios and android applications');
  if (input.application.kind !== detected.platform) {
    throw new InvalidError(
      `fileName: a ${detected.platform} build cannot be uploaded to an ${input.application.kind} application`,
    );
  }
  if (input.fileSize !== undefined && input.fileSize > deps.builds.maxBytes) {
    throw new InvalidError(
      `fileSize: ${input.fileSize} bytes is over the limit of ${deps.builds.maxBytes} bytes for a build`,
    );
  }
  const buildToken = `pbt_${randomBytes(32).toString('base64url')}`;
  const blobKey = `builds/${input.projectId}/${newId()}/build.${detected.type}`;
  await insertBuildUpload(deps.db, {
    projectId: input.projectId,
    applicationId: input.application.id,
    tokenHash: hashToken(buildToken),
    fileName: input.fileName.trim(),
    fileType: detected.type,
    blobKey,
    // A declared size is the upload's exact size: the store refuses any other, registration anything larger.
    maxBytes: input.fileSize ?? deps.builds.maxBytes,
    expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS),
  });
  const uploadUrl = await deps.blobs.presignPut(blobKey, deps.builds.urlTtlSeconds, {
    maxBytes: deps.builds.maxBytes,
    size: input.fileSize,
  });
  return { uploadUrl, buildToken };
}

/**
 * Step 2: turns an uploaded file into a build. The token is spent by the first attempt that finds the file;
 * a file that is too large, of the other platform, or not the archive its name promised is deleted.
 */
export async function registerBuild(
  deps: ServiceContext<'blobs' | 'builds'>,
  input: { projectId: string; application: Application; platform: BuildPlatform; buildToken: string },
): Promise<BuildView> {
  const upload = await findBuildUpload(deps.db, input.projectId, input.application.id, hashToken(input.buildToken));
  if (!upload || upload.used_at !== null || !isBuildFileType(upload.file_type)) {
    throw new InvalidError(
      'buildToken: unknown, already used, or issued for another application; request a new upload URL',
    );
  }
  if (upload.expires_at.getTime() < Date.now()) throw new InvalidError('buildToken: expired; request a new upload URL');
  // Checked before the token is spent, so a client that calls too early can simply retry after its PUT.
  const object = await deps.blobs.stat(upload.blob_key);
  if (!object) throw new InvalidError('no file has been uploaded for this buildToken: PUT it to the uploadUrl first');
  if (!(await consumeBuildUpload(deps.db, upload.id))) throw new InvalidError('buildToken: already used');

  const reject = async (message: string): Promise<never> => {
    await deps.blobs.delete(upload.blob_key);
    throw new InvalidError(message);
  };
  // An S3 URL signed without a size cannot bound the length, so the cap is enforced here for that store.
  if (object.size > Number(upload.max_bytes))
    await reject(`the uploaded file has ${object.size} bytes; the limit is ${upload.max_bytes}`);
  const expected = platformOfType(upload.file_type);
  if (input.platform !== expected)
    await reject(`platform: "${upload.file_name}" is an ${expected} build, not ${input.platform}`);
  const failure = await inspectBuild(deps.blobs, upload.blob_key, object.size, upload.file_type);
  if (failure) await reject(failure);

  return insertBuild(deps.db, {
    projectId: input.projectId,
    applicationId: input.application.id,
    platform: expected,
    fileName: upload.file_name,
    fileSizeBytes: object.size,
    blobKey: upload.blob_key,
  });
}

/** The builds of an application of the project, newest first. */
export const listApplicationBuilds = (
  { db }: ServiceContext,
  projectId: string,
  applicationId: string,
): Promise<BuildView[]> => listBuilds(db, projectId, applicationId);

/** A build of the application, or NotFoundError (also when it belongs to another application or project). */
export async function getApplicationBuild(
  { db }: ServiceContext,
  projectId: string,
  applicationId: string,
  buildShortId: string,
): Promise<BuildView> {
  const build = await findBuild(db, projectId, buildShortId);
  if (!build || build.application_id !== applicationId) throw new NotFoundError('Application build');
  return buildView(build);
}
