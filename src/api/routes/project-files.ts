import type { OpenApiApp } from '../openapi.js';
import { deleted, resource } from '../resource-routes.js';
import { pathParams } from '../../schemas/common.js';
import { serveResource } from '../operation-routes.js';
import { ProjectFileName, ProjectFileSchema, UploadProjectFile } from '../../schemas/project-files.js';
import { deleteProjectFile, listProjectFiles, uploadProjectFile } from '../../services/project-files.js';

const files = resource({
  path: '/v1/files/{name}',
  tags: ['Management'],
  noun: ['a project file', 'project files'],
  schema: ProjectFileSchema,
  params: pathParams({ name: ProjectFileName }),
});

const routes = {
  list: files.list('files', {
    summary: "List the project's files (for tests' file inputs)",
    answer: 'Files of the project, by name',
  }),
  upload: files.create(UploadProjectFile, {
    summary: 'Upload a file that tests send through file inputs',
    description:
      'A file of the same name is replaced. The burn-in agent is offered the names; an `upload` step with `projectFile` sends it at every replay.',
    answer: 'Stored',
  }),
  remove: files.remove({
    description:
      'Steps that upload it fail (as a test definition problem) until a file of that name is uploaded again.',
  }),
};

export function registerProjectFiles(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId }) => ({ files: await listProjectFiles(services, projectId) }),
    upload: ({ services, projectId, body }) => uploadProjectFile(services, projectId, body),
    remove: async ({ services, projectId, param }) => deleted(await deleteProjectFile(services, projectId, param.name)),
  });
}
