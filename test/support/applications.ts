// An application (with one environment, when its tests run), made through the API as a user would, and its internal
// id for the tests that then write recorded test cases for it straight into the database (test/support/recorded.ts).
import { expect } from 'vitest';
import { profileSteps } from './fixtures/quality.js';
import { applicationIdOf, insertRecordedTestCase } from './recorded.js';
import type { Stack } from './worker-context.js';

/**
 * Creates the application and, when given, its environment (each must be created: 201) through `api` (a stack or
 * an API context); returns the application's short id and id, and the environment's short id.
 */
export async function addApplication(
  api: Pick<Stack, 'call' | 'db'>,
  name: string,
  environment?: { name: string; url: string },
): Promise<{ shortId: string; id: string; environmentShortId?: string }> {
  const app = await api.call('POST', '/v1/applications', { name });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  const shortId = app.body.shortId as string;
  const id = await applicationIdOf(api.db, shortId);
  if (!environment) return { shortId, id };
  const env = await api.call('POST', `/v1/applications/${shortId}/environments`, environment);
  expect(env.status, JSON.stringify(env.body)).toBe(201);
  return { shortId, id, environmentShortId: env.body.shortId as string };
}

/**
 * The quality tests' set-up: the Profile application on the fixture's quality page at `url` (its Production
 * environment), its recorded test "Save the profile" and a plan "Profile" of that test.
 */
export async function addProfilePlan(
  stack: Stack,
  url: string,
): Promise<{ appShortId: string; testCaseId: string; planShortId: string }> {
  const app = await addApplication(stack, 'Profile', { name: 'Production', url });
  const testCaseId = await insertRecordedTestCase(stack.db, {
    projectId: stack.tenant.projectId,
    applicationId: app.id,
    name: 'Save the profile',
    steps: profileSteps,
  });
  const plan = await stack.call('POST', '/v1/test-plans', { name: 'Profile', testCaseIds: [testCaseId] });
  return { appShortId: app.shortId, testCaseId, planShortId: plan.body.shortId };
}
