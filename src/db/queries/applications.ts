import type { DB } from '../database.js';
import type { ApplicationKind } from '../schema.js';
import { newId, newShortId } from '../../ids.js';
import { updateProjectRow } from './project-rows.js';
import type { SelectedRow } from './rows.js';

export interface ApplicationView {
  shortId: string;
  name: string;
  kind: ApplicationKind;
  defaultEnvironmentShortId: string | null;
  defaultDevicePresetShortId: string | null;
  createdAt: string;
}

function selectApplications(db: DB, projectId: string) {
  return db
    .selectFrom('applications as a')
    .leftJoin('environments as e', 'e.id', 'a.default_environment_id')
    .leftJoin('device_presets as d', 'd.id', 'a.default_device_preset_id')
    .select([
      'a.id',
      'a.short_id',
      'a.name',
      'a.kind',
      'a.created_at',
      'e.short_id as default_environment_short_id',
      'd.short_id as default_device_preset_short_id',
    ])
    .where('a.project_id', '=', projectId);
}

type Row = SelectedRow<typeof selectApplications>;

export function toApplicationView(row: Row): ApplicationView {
  return {
    shortId: row.short_id,
    name: row.name,
    kind: row.kind,
    defaultEnvironmentShortId: row.default_environment_short_id,
    defaultDevicePresetShortId: row.default_device_preset_short_id,
    createdAt: row.created_at.toISOString(),
  };
}

export async function listApplications(db: DB, projectId: string): Promise<ApplicationView[]> {
  const rows = await selectApplications(db, projectId).orderBy('a.created_at').orderBy('a.id').execute();
  return rows.map(toApplicationView);
}

export async function getApplication(
  db: DB,
  projectId: string,
  shortId: string,
): Promise<(ApplicationView & { id: string }) | undefined> {
  const row = await selectApplications(db, projectId).where('a.short_id', '=', shortId).executeTakeFirst();
  return row && { id: row.id, ...toApplicationView(row) };
}

export async function createApplication(
  db: DB,
  projectId: string,
  input: { name: string; kind: ApplicationKind },
): Promise<ApplicationView> {
  const shortId = newShortId('application', input.name);
  await db
    .insertInto('applications')
    .values({ id: newId(), short_id: shortId, project_id: projectId, name: input.name, kind: input.kind })
    .execute();
  const { id: _id, ...view } = (await getApplication(db, projectId, shortId))!;
  return view;
}

export async function updateApplication(
  db: DB,
  id: string,
  patch: { name?: string; defaultEnvironmentId?: string | null; defaultDevicePresetId?: string | null },
): Promise<void> {
  await updateProjectRow(db, 'applications', id, {
    name: patch.name,
    default_environment_id: patch.defaultEnvironmentId,
    default_device_preset_id: patch.defaultDevicePresetId,
  });
}

export async function deleteApplication(db: DB, id: string): Promise<void> {
  await db.deleteFrom('applications').where('id', '=', id).execute();
}

/** The applications a run touches, with their defaults. */
export async function applicationDefaults(db: DB, applicationIds: string[]) {
  if (applicationIds.length === 0) return [];
  return db
    .selectFrom('applications')
    .select(['id', 'short_id', 'name', 'default_environment_id', 'default_device_preset_id'])
    .where('id', 'in', applicationIds)
    .execute();
}

/** Which of these short ids name applications of the project. */
export async function existingApplicationShortIds(db: DB, projectId: string, shortIds: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('applications')
    .select('short_id')
    .where('project_id', '=', projectId)
    .where('short_id', 'in', shortIds)
    .execute();
  return rows.map((r) => r.short_id);
}

/** The short ids of the project's web applications, oldest first. */
export async function webApplicationShortIds(db: DB, projectId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('applications')
    .select('short_id')
    .where('project_id', '=', projectId)
    .where('kind', '=', 'web')
    .orderBy('created_at')
    .execute();
  return rows.map((r) => r.short_id);
}
