import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { getProjectSettings, updateProjectSettings } from '../../services/project-settings.js';
import { tokenActor } from '../../services/audit-log.js';
import { ProjectSettingsSchema, UpdateProjectSettings } from '../../schemas/project-settings.js';

const tags = ['Management'];
const routes = {
  get: createRoute({
    method: 'get',
    path: '/v1/project/settings',
    tags,
    security: bearerSecurity,
    summary: "The caller's project settings",
    responses: { 200: json(ProjectSettingsSchema, 'Settings'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch',
    path: '/v1/project/settings',
    tags,
    security: bearerSecurity,
    summary: "Change the caller's project settings",
    description: 'Only the fields given change; an invalid field changes nothing.',
    request: { body: jsonBody(UpdateProjectSettings) },
    responses: { 200: json(ProjectSettingsSchema, 'Settings after the change'), ...errorResponses },
  }),
};

export function registerProjectSettings(app: OpenApiApp): void {
  app.openapi(routes.get, async (c) =>
    c.json(await getProjectSettings(c.get('services'), c.get('caller').projectId), 200),
  );
  app.openapi(routes.update, async (c) =>
    c.json(
      await updateProjectSettings(
        c.get('services'),
        c.get('caller').projectId,
        c.req.valid('json'),
        tokenActor(c.get('caller').tokenId),
      ),
      200,
    ),
  );
}
