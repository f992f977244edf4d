import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { healPolicies } from '../../domain/steps.js';
import { getHealPolicy, setHealPolicy } from '../../services/heal-proposals.js';

const healPolicy = z.enum(healPolicies).openapi({
  description:
    'What happens to locators a passing run had to heal: `review` (default) keeps them as a proposal on the test case ' +
    '(`GET /v1/test-cases/{id}/steps/proposals`, applied by `POST .../steps/{version}/accept`); `auto` saves them as the next steps version. ' +
    'Either way a heal only adds a locator in front of the recorded ones.',
  example: 'review',
});

const ProjectSettingsSchema = z.object({ healPolicy }).openapi('ProjectSettings');
const UpdateProjectSettings = z.object({ healPolicy: healPolicy.optional() }).strict().openapi('UpdateProjectSettings');

const tags = ['Management'];
const routes = {
  get: createRoute({
    method: 'get', path: '/v1/project/settings', tags, security: bearerSecurity,
    summary: "The caller's project settings",
    responses: { 200: json(ProjectSettingsSchema, 'Settings'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch', path: '/v1/project/settings', tags, security: bearerSecurity,
    summary: "Change the caller's project settings",
    request: { body: jsonBody(UpdateProjectSettings) },
    responses: { 200: json(ProjectSettingsSchema, 'Settings after the change'), ...errorResponses },
  }),
};

export function registerProjectSettings(app: OpenApiApp): void {
  app.openapi(routes.get, async (c) => c.json({ healPolicy: await getHealPolicy(c.get('deps').db, c.get('caller').projectId) }, 200));
  app.openapi(routes.update, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const body = c.req.valid('json');
    const healPolicy = body.healPolicy ? await setHealPolicy(db, projectId, body.healPolicy) : await getHealPolicy(db, projectId);
    return c.json({ healPolicy }, 200);
  });
}
