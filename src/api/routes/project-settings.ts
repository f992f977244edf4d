import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { getProjectSettings, updateProjectSettings } from '../../services/project-settings.js';
import { tokenActor } from '../../services/audit-log.js';
import { ProjectSettingsSchema, UpdateProjectSettings } from '../../schemas/project-settings.js';

const settings = { tags: ['Management'], path: '/v1/project/settings', answers: ProjectSettingsSchema };
const routes = {
  get: operation({ ...settings, method: 'get', summary: "The caller's project settings", answer: 'Settings' }),
  update: operation({
    ...settings,
    method: 'patch',
    summary: "Change the caller's project settings",
    description: 'Only the fields given change; an invalid field changes nothing.',
    body: UpdateProjectSettings,
    answer: 'Settings after the change',
  }),
};

export function registerProjectSettings(app: OpenApiApp): void {
  serveResource(app, routes, {
    get: ({ services, projectId }) => getProjectSettings(services, projectId),
    update: ({ services, projectId, caller, body }) =>
      updateProjectSettings(services, projectId, body, tokenActor(caller.tokenId)),
  });
}
