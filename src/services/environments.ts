// Environments as business operations: each belongs to an application of the caller's project; a mobile
// application's environment may name one of its own builds, a web application's uses a URL.
import type { DB } from '../db/database.js';
import { findBuild } from '../db/queries/builds.js';
import {
  createEnvironment as insertEnvironment,
  deleteEnvironment as deleteEnvironmentRows,
  findEnvironment,
  getEnvironmentView,
  listEnvironments,
  updateEnvironment as updateEnvironmentRow,
  type EnvironmentView,
} from '../db/queries/environments.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import type { EnvironmentAccessInput } from '../domain/environment-access.js';
import { checkAccess, saveAccess } from './environment-access.js';
import { requireApplication } from './applications.js';
import type { ServiceContext } from './context.js';

export type { EnvironmentView };

export interface EnvironmentRef {
  projectId: string;
  applicationShortId: string;
  environmentShortId: string;
}

/** The environments of an application of the project (NotFoundError for another project's application). */
export async function listApplicationEnvironments(
  { db }: ServiceContext,
  projectId: string,
  applicationShortId: string,
): Promise<EnvironmentView[]> {
  const application = await requireApplication({ db }, projectId, applicationShortId);
  return listEnvironments(db, projectId, application.id);
}

/** The environment of that application of the project, or NotFoundError. */
async function requireEnvironment(
  db: DB,
  ref: EnvironmentRef,
): Promise<{ id: string; applicationId: string; shortId: string }> {
  const application = await requireApplication({ db }, ref.projectId, ref.applicationShortId);
  const env = await findEnvironment(db, ref.projectId, ref.environmentShortId);
  if (!env || env.application_id !== application.id) throw new NotFoundError('Environment');
  return { id: env.id, applicationId: application.id, shortId: env.short_id };
}

export async function createEnvironment(
  { db }: ServiceContext,
  input: {
    projectId: string;
    applicationShortId: string;
    name: string;
    url?: string | null;
    applicationBuildShortId?: string;
    isProduction: boolean;
    isDefault: boolean;
    access?: EnvironmentAccessInput;
  },
): Promise<EnvironmentView> {
  const { projectId } = input;
  const application = await requireApplication({ db }, projectId, input.applicationShortId);
  if (input.access) checkAccess(input.access, Boolean(input.url));
  let buildId: string | null = null;
  if (input.applicationBuildShortId) {
    if (application.kind === 'web') throw new InvalidError('applicationBuildShortId: web applications use a url');
    const build = await findBuild(db, projectId, input.applicationBuildShortId);
    // A build of another application of the project is as unknown here as one of another project.
    if (!build || build.application_id !== application.id) throw new NotFoundError('Application build');
    buildId = build.id;
  }
  const shortId = await insertEnvironment(db, {
    projectId,
    applicationId: application.id,
    name: input.name,
    url: input.url ?? null,
    buildId,
    isProduction: input.isProduction,
    makeDefault: input.isDefault,
  });
  if (input.access) await saveAccess({ db }, projectId, shortId, input.access);
  return (await getEnvironmentView(db, projectId, shortId))!;
}

export async function getEnvironment({ db }: ServiceContext, ref: EnvironmentRef): Promise<EnvironmentView> {
  const env = await requireEnvironment(db, ref);
  return (await getEnvironmentView(db, ref.projectId, env.shortId))!;
}

export async function updateEnvironment(
  { db }: ServiceContext,
  ref: EnvironmentRef,
  patch: { name?: string; url?: string; isProduction?: boolean; isDefault?: boolean; access?: EnvironmentAccessInput },
): Promise<EnvironmentView> {
  const env = await requireEnvironment(db, ref);
  if (patch.access) await saveAccess({ db }, ref.projectId, env.shortId, patch.access);
  await updateEnvironmentRow(db, env, {
    name: patch.name,
    url: patch.url,
    isProduction: patch.isProduction,
    makeDefault: patch.isDefault,
  });
  return (await getEnvironmentView(db, ref.projectId, env.shortId))!;
}

export async function deleteEnvironment({ db }: ServiceContext, ref: EnvironmentRef): Promise<void> {
  await deleteEnvironmentRows(db, await requireEnvironment(db, ref));
}
