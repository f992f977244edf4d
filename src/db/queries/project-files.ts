import type { DB } from '../database.js';
import type { ProjectFilesTable } from '../schema.js';
import { findProjectRow } from './project-rows.js';

export type ProjectFileRow = Omit<ProjectFilesTable, 'created_at'> & { created_at: Date };

/** Stores a file's metadata, replacing the file of the same name. */
export async function saveProjectFile(db: DB, row: Omit<ProjectFileRow, 'created_at'>): Promise<ProjectFileRow> {
  return db
    .insertInto('project_files')
    .values({ ...row, created_at: new Date() })
    .onConflict((oc) =>
      oc.columns(['project_id', 'name']).doUpdateSet({
        size_bytes: row.size_bytes,
        type: row.type,
        mime_type: row.mime_type,
        blob_key: row.blob_key,
        created_at: new Date(),
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listProjectFiles(db: DB, projectId: string): Promise<ProjectFileRow[]> {
  return db.selectFrom('project_files').selectAll().where('project_id', '=', projectId).orderBy('name').execute();
}

export async function findProjectFile(db: DB, projectId: string, name: string): Promise<ProjectFileRow | undefined> {
  return findProjectRow(db, 'project_files', projectId, 'name', name);
}

/** The deleted row, or undefined when there was none. */
export async function deleteProjectFile(db: DB, projectId: string, name: string): Promise<ProjectFileRow | undefined> {
  return db
    .deleteFrom('project_files')
    .where('project_id', '=', projectId)
    .where('name', '=', name)
    .returningAll()
    .executeTakeFirst();
}
