import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { healPolicies } from '../../domain/steps.js';
import { defaultTestRetries, flakeWindow, maxTestRetries, minRuleFlakeRate } from '../../domain/flakiness.js';
import { getProjectSettings, updateProjectSettings } from '../../services/project-settings.js';
import { tokenActor } from '../../services/audit-log.js';
import { defaultIssueResolveAfterRuns, maxIssueResolveAfterRuns } from '../../domain/quality.js';

const healPolicy = z.enum(healPolicies).openapi({
  description:
    'What happens to locators a passing run had to heal: `review` (default) keeps them as a proposal on the test case ' +
    '(`GET /v1/test-cases/{id}/steps/proposals`, applied by `POST .../steps/{version}/accept`); `auto` saves them as the next steps version. ' +
    'Either way a heal only adds a locator in front of the recorded ones.',
  example: 'review',
});

const retries = z.number().int().min(0).max(maxTestRetries).openapi({
  description:
    `How many times a failed test of a run is executed again before it is reported (default ${defaultTestRetries}). ` +
    'A test that passes on a retry is PASSED with `flaky: true`; a test that cannot run as defined (`failureKind: test-definition`) is not retried.',
  example: 1,
});

const quarantine = z
  .object({
    flakeRate: z.number().min(minRuleFlakeRate).max(1).openapi({ description: 'Quarantine at this flake rate or above (a fraction: 0.3 is 30%)', example: 0.3 }),
    minRuns: z.number().int().min(1).max(flakeWindow).openapi({ description: `…over at least this many of the last ${flakeWindow} finished runs`, example: 10 }),
  })
  .strict()
  .nullable()
  .openapi({
    description:
      'The quarantine rule, checked when a run is written; null (default) is off. A quarantined test (by this rule or by its own ' +
      '`quarantined` flag) still runs and reports, with `quarantined: true`, but its failure fails neither the run nor a change review.',
  });

const issueResolveAfterRuns = z.number().int().min(1).max(maxIssueResolveAfterRuns).openapi({
  description: `An open issue (\`GET /v1/issues\`) resolves itself after this many passing runs, without it, of the tests that saw it (default ${defaultIssueResolveAfterRuns}).`,
  example: 3,
});
const signalIgnoreUrls = z.array(z.string().min(1).max(500)).max(50).openapi({
  description: 'Request URLs whose failures are not quality signals: `*` matches any characters, a pattern without `*` any URL containing it.',
  example: ['*/analytics/*', 'https://status.example.com'],
});

const ProjectSettingsSchema = z.object({ healPolicy, retries, quarantine, issueResolveAfterRuns, signalIgnoreUrls }).openapi('ProjectSettings');
const UpdateProjectSettings = z
  .object({ healPolicy: healPolicy.optional(), retries: retries.optional(), quarantine: quarantine.optional(), issueResolveAfterRuns: issueResolveAfterRuns.optional(), signalIgnoreUrls: signalIgnoreUrls.optional() })
  .strict()
  .openapi('UpdateProjectSettings');

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
    description: 'Only the fields given change; an invalid field changes nothing.',
    request: { body: jsonBody(UpdateProjectSettings) },
    responses: { 200: json(ProjectSettingsSchema, 'Settings after the change'), ...errorResponses },
  }),
};

export function registerProjectSettings(app: OpenApiApp): void {
  app.openapi(routes.get, async (c) => c.json(await getProjectSettings(c.get('deps').db, c.get('caller').projectId), 200));
  app.openapi(routes.update, async (c) => c.json(await updateProjectSettings(c.get('deps').db, c.get('caller').projectId, c.req.valid('json'), tokenActor(c.get('caller').tokenId)), 200));
}
