import {
  deleteProjectFile as deleteRow,
  findProjectFile,
  listProjectFiles as listRows,
  saveProjectFile,
  type ProjectFileRow,
} from '../db/queries/project-files.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import { fileTypeOf } from '../browser/steps/files.js';
import type { ServiceContext } from './context.js';
import { mimeTypeOf } from '../domain/file-types.js';

// Files a project uploads for its tests' file inputs: `upload` with `projectFile` sends one, at burn-in and
// replay alike. Small (they travel base64 in a JSON body), kept whole in the blob store.

/** Largest project file: base64 of it stays under the API's 1 MiB JSON body. */
export const maxProjectFileBytes = 700 * 1024;

export interface ProjectFileView {
  name: string;
  size: number;
  type: string;
  mimeType: string;
  createdAt: string;
}

const view = (row: ProjectFileRow): ProjectFileView => ({
  name: row.name,
  size: row.size_bytes,
  type: row.type,
  mimeType: row.mime_type,
  createdAt: row.created_at.toISOString(),
});

/** Stores (or replaces) a project file; its type is read from the bytes. */
export async function uploadProjectFile(
  deps: ServiceContext<'blobs'>,
  projectId: string,
  input: { name: string; contentBase64: string },
): Promise<ProjectFileView> {
  const bytes = Buffer.from(input.contentBase64, 'base64');
  if (bytes.length === 0) throw new InvalidError('the file is empty');
  if (bytes.length > maxProjectFileBytes)
    throw new InvalidError(`the file has ${bytes.length} bytes; at most ${maxProjectFileBytes} are kept`);
  const type = fileTypeOf(bytes, input.name);
  const blobKey = `projects/${projectId}/files/${input.name}`;
  const mimeType = mimeTypeOf(type);
  await deps.blobs.put(blobKey, bytes, mimeType);
  return view(
    await saveProjectFile(deps.db, {
      project_id: projectId,
      name: input.name,
      size_bytes: bytes.length,
      type,
      mime_type: mimeType,
      blob_key: blobKey,
    }),
  );
}

export async function listProjectFiles({ db }: ServiceContext, projectId: string): Promise<ProjectFileView[]> {
  return (await listRows(db, projectId)).map(view);
}

export async function deleteProjectFile(deps: ServiceContext<'blobs'>, projectId: string, name: string): Promise<void> {
  const row = await deleteRow(deps.db, projectId, name);
  if (!row) throw new NotFoundError('File', name);
  await deps.blobs.delete(row.blob_key);
}

/** A project file's bytes for a file input, or undefined when the project has no file of that name. */
export async function loadProjectFile(
  deps: ServiceContext<'blobs'>,
  projectId: string,
  name: string,
): Promise<{ name: string; mimeType: string; buffer: Buffer } | undefined> {
  const row = await findProjectFile(deps.db, projectId, name);
  if (!row) return undefined;
  return { name: row.name, mimeType: row.mime_type, buffer: await deps.blobs.get(row.blob_key) };
}

/** The names the burn-in agent may upload. */
export async function projectFileNames({ db }: ServiceContext, projectId: string): Promise<string[]> {
  return (await listRows(db, projectId)).map((r) => r.name);
}
