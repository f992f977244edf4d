// Git sync's rows: a project's sync setting, and per file in the synced folder the agreed text (base) and what
// the last look at it found.
import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import type { GitSyncFilesTable, GitSyncSettingsTable } from '../schema.js';

export type GitSyncSettingsRow = Selectable<GitSyncSettingsTable>;
export type GitSyncFileRow = Selectable<GitSyncFilesTable>;

export async function findGitSyncSettings(db: DB, projectId: string): Promise<GitSyncSettingsRow | undefined> {
  return db.selectFrom('git_sync_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
}

export async function upsertGitSyncSettings(
  db: DB,
  row: Pick<GitSyncSettingsRow, 'project_id' | 'provider' | 'repository' | 'folder' | 'branch'>,
): Promise<GitSyncSettingsRow> {
  const { project_id: _, ...values } = row;
  return db
    .insertInto('git_sync_settings')
    .values(row)
    .onConflict((oc) => oc.column('project_id').doUpdateSet({ ...values, updated_at: new Date() }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes the setting and what was known about its files (another folder or repository starts afresh). */
export async function deleteGitSyncSettings(db: DB, projectId: string): Promise<boolean> {
  await db.deleteFrom('git_sync_files').where('project_id', '=', projectId).execute();
  const deleted = await db.deleteFrom('git_sync_settings').where('project_id', '=', projectId).executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** The projects that sync `repository` of `provider` (a push names a repository, not a project). */
export async function projectsSyncing(db: DB, provider: string, repository: string): Promise<GitSyncSettingsRow[]> {
  return db
    .selectFrom('git_sync_settings')
    .selectAll()
    .where('provider', '=', provider as GitSyncSettingsRow['provider'])
    .where((eb) => eb(eb.fn('lower', ['repository']), '=', repository.toLowerCase()))
    .execute();
}

export async function gitSyncFiles(db: DB, projectId: string): Promise<GitSyncFileRow[]> {
  return db.selectFrom('git_sync_files').selectAll().where('project_id', '=', projectId).orderBy('path').execute();
}

export async function gitSyncFileOfTestCase(
  db: DB,
  projectId: string,
  testCaseId: string,
): Promise<GitSyncFileRow | undefined> {
  return db
    .selectFrom('git_sync_files')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('test_case_id', '=', testCaseId)
    .orderBy('updated_at', 'desc')
    .executeTakeFirst();
}

export type GitSyncFileValues = Omit<GitSyncFileRow, 'updated_at'>;

export async function saveGitSyncFile(db: DB, row: GitSyncFileValues): Promise<void> {
  const { project_id: _, path: __, ...values } = row;
  await db
    .insertInto('git_sync_files')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'path']).doUpdateSet({ ...values, updated_at: new Date() }))
    .execute();
}

/** The test case's project and steps version when that project syncs with Git; undefined otherwise. */
export async function syncedTestCase(
  db: DB,
  testCaseId: string,
): Promise<{ projectId: string; stepsVersion: number } | undefined> {
  const row = await db
    .selectFrom('test_cases as tc')
    .innerJoin('git_sync_settings as s', 's.project_id', 'tc.project_id')
    .select(['tc.project_id', 'tc.steps_version'])
    .where('tc.id', '=', testCaseId)
    .executeTakeFirst();
  return row && { projectId: row.project_id, stepsVersion: row.steps_version };
}

/** Whether the project has merge-request review set up for the repository (it shares the GitLab hook). */
export async function reviewsRepository(
  db: DB,
  projectId: string,
  provider: GitSyncSettingsRow['provider'],
  repository: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('merge_request_review_settings')
    .select('id')
    .where('project_id', '=', projectId)
    .where('provider', '=', provider)
    .where('repository', '=', repository)
    .executeTakeFirst();
  return row !== undefined;
}
