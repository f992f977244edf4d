import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted } from '../../schemas/common.js';
import { ProjectFileName, ProjectFileSchema, UploadProjectFile } from '../../schemas/project-files.js';
import { deleteProjectFile, listProjectFiles, uploadProjectFile } from '../../services/project-files.js';

const tags = ['Management'];
const base = '/v1/files';
const Params = z.object({ name: ProjectFileName.openapi({ param: { name: 'name', in: 'path' } }) });

const routes = {
  list: createRoute({
    method: 'get',
    path: base,
    tags,
    security: bearerSecurity,
    summary: "List the project's files (for tests' file inputs)",
    responses: {
      200: json(z.object({ files: z.array(ProjectFileSchema) }), 'Files of the project, by name'),
      ...errorResponses,
    },
  }),
  upload: createRoute({
    method: 'post',
    path: base,
    tags,
    security: bearerSecurity,
    summary: 'Upload a file that tests send through file inputs',
    description:
      'A file of the same name is replaced. The burn-in agent is offered the names; an `upload` step with `projectFile` sends it at every replay.',
    request: { body: jsonBody(UploadProjectFile) },
    responses: { 201: json(ProjectFileSchema, 'Stored'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete',
    path: `${base}/{name}`,
    tags,
    security: bearerSecurity,
    summary: 'Delete a project file',
    description:
      'Steps that upload it fail (as a test definition problem) until a file of that name is uploaded again.',
    request: { params: Params },
    responses: { 200: json(Deleted, 'Deleted'), ...errorResponses },
  }),
};

export function registerProjectFiles(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) =>
    c.json({ files: await listProjectFiles(c.get('services'), c.get('caller').projectId) }, 200),
  );

  app.openapi(routes.upload, async (c) =>
    c.json(await uploadProjectFile(c.get('services'), c.get('caller').projectId, c.req.valid('json')), 201),
  );

  app.openapi(routes.remove, async (c) => {
    await deleteProjectFile(c.get('services'), c.get('caller').projectId, c.req.valid('param').name);
    return c.json({ deleted: true as const }, 200);
  });
}
