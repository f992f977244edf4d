// Applications as business operations: the list (cached per project), one application of the caller's project,
// and an update whose default environment and device preset must be the project's. Used by the API, MCP and the
// dashboard.
import {
  createApplication as insertApplication,
  deleteApplication,
  getApplication,
  listApplications as selectApplications,
  updateApplication,
  type ApplicationView,
} from '../db/queries/applications.js';
import { findEnvironment } from '../db/queries/environments.js';
import { findDevicePresetId } from '../db/queries/lookups.js';
import { readProjectList, type JsonText } from '../db/queries/project-lists.js';
import type { ApplicationKind } from '../db/schema.js';
import { NotFoundError, UnavailableError } from '../domain/errors.js';
import { deleteApplicationDiscoverySchedules } from '../temporal/discovery-schedules.js';
import type { ServiceContext } from './context.js';
import { projectResource } from './project-resources.js';

export type { ApplicationView };

const resource = projectResource('Application', { list: selectApplications, get: getApplication });

/** The project's applications, oldest first. */
export const listApplications = resource.list;
/** The application of the caller's project, or NotFoundError (also when it belongs to another project). */
export const requireApplication = resource.require;

/** The project's applications as the list route sends them: JSON text, kept until a write forgets it. */
export function applicationListText(
  { db }: ServiceContext,
  projectId: string,
): Promise<JsonText<{ applications: ApplicationView[] }>> {
  return readProjectList(db, projectId, 'applications', async () => ({
    applications: await selectApplications(db, projectId),
  }));
}

export function createApplication(
  { db }: ServiceContext,
  projectId: string,
  input: { name: string; kind: ApplicationKind },
): Promise<ApplicationView> {
  return insertApplication(db, projectId, input);
}

/** Rename an application or change its defaults; both defaults must be the project's (the environment, the application's). */
export async function updateApplicationSettings(
  { db }: ServiceContext,
  projectId: string,
  applicationShortId: string,
  body: { name?: string; defaultEnvironmentShortId?: string; defaultDevicePresetShortId?: string | null },
): Promise<ApplicationView & { id: string }> {
  const application = await requireApplication({ db }, projectId, applicationShortId);
  let defaultEnvironmentId: string | undefined;
  if (body.defaultEnvironmentShortId !== undefined) {
    const environment = await findEnvironment(db, projectId, body.defaultEnvironmentShortId);
    if (!environment || environment.application_id !== application.id) throw new NotFoundError('Environment');
    defaultEnvironmentId = environment.id;
  }
  let defaultDevicePresetId: string | null | undefined;
  if (body.defaultDevicePresetShortId !== undefined) {
    defaultDevicePresetId =
      body.defaultDevicePresetShortId === null
        ? null
        : await findDevicePresetId(db, projectId, body.defaultDevicePresetShortId);
    if (defaultDevicePresetId === undefined) throw new NotFoundError('Device preset');
  }
  await updateApplication(db, application.id, { name: body.name, defaultEnvironmentId, defaultDevicePresetId });
  return requireApplication({ db }, projectId, application.shortId);
}

export async function removeApplication(
  { db, temporal }: ServiceContext,
  projectId: string,
  applicationShortId: string,
): Promise<void> {
  const application = await requireApplication({ db }, projectId, applicationShortId);
  // Its discovery schedules' Temporal Schedules first: when they cannot be deleted, nothing is.
  try {
    await deleteApplicationDiscoverySchedules(db, temporal, application.id);
  } catch (err) {
    throw new UnavailableError(
      `could not delete the application's discovery schedules: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  await deleteApplication(db, application.id);
}
