// An application with one environment, made through the API as a user would, and its internal id for the tests
// that then write recorded test cases for it straight into the database (test/support/recorded.ts).
import { expect } from 'vitest';
import { applicationIdOf } from './recorded.js';
import type { Stack } from './worker-context.js';

/** Creates the application and its environment (both must be created: 201) and returns its short id and id. */
export async function addApplication(
  stack: Stack,
  name: string,
  environment: { name: string; url: string },
): Promise<{ shortId: string; id: string }> {
  const app = await stack.call('POST', '/v1/applications', { name });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  const shortId = app.body.shortId as string;
  const env = await stack.call('POST', `/v1/applications/${shortId}/environments`, environment);
  expect(env.status, JSON.stringify(env.body)).toBe(201);
  return { shortId, id: await applicationIdOf(stack.db, shortId) };
}
