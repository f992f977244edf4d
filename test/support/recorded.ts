import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { DB } from '../../src/db/database.js';
import type { TestCasesTable } from '../../src/db/schema.js';
import type { Step } from '../../src/domain/steps.js';
import { shopCredentials } from './fixture-apps.js';
import { rowIdOf } from './row-ids.js';

// Steps in exactly the form burn-in records them, for tests that exercise runs without a burn-in first.

export const loginSteps: Step[] = [
  { action: 'navigate', value: '/shop/login', description: 'Open the shop' },
  {
    action: 'fill',
    locator: "getByRole('textbox', { name: 'Email' })",
    value: shopCredentials.email,
    description: 'Type the email',
  },
  {
    action: 'fill',
    locator: "getByRole('textbox', { name: 'Password' })",
    value: shopCredentials.password,
    description: 'Type the password',
  },
  { action: 'click', locator: "getByRole('button', { name: 'Sign in' })", description: 'Sign in' },
  { action: 'click', locator: "getByRole('button', { name: 'Add Coffee mug to cart' })", description: 'Add the mug' },
  { action: 'assert_visible', locator: "getByRole('link', { name: 'Cart (1)' })", description: 'One item in the cart' },
];

export const checkoutSteps: Step[] = [
  { action: 'click', locator: "getByRole('link', { name: 'Cart (1)' })", description: 'Open the cart' },
  { action: 'click', locator: "getByRole('button', { name: 'Checkout' })", description: 'Go to checkout' },
  {
    action: 'fill',
    locator: "getByRole('textbox', { name: 'Full name' })",
    value: 'Ada Lovelace',
    description: 'Name',
  },
  {
    action: 'fill',
    locator: "getByRole('textbox', { name: 'Address' })",
    value: '12 Analytical St',
    description: 'Address',
  },
  {
    action: 'check',
    locator: "getByRole('checkbox', { name: 'I accept the terms' })",
    description: 'Accept the terms',
  },
  { action: 'click', locator: "getByRole('button', { name: 'Place order' })", description: 'Place the order' },
  { action: 'assert_visible', locator: "getByRole('heading', { name: 'Order confirmed' })", description: 'Confirmed' },
];

export const todoSteps = (text: string): Step[] => [
  { action: 'navigate', value: '/todo/', description: 'Open the todo app' },
  { action: 'fill', locator: "getByRole('textbox', { name: 'New todo' })", value: text, description: 'Type a todo' },
  { action: 'press', locator: "getByRole('textbox', { name: 'New todo' })", value: 'Enter', description: 'Add it' },
  {
    action: 'assert_visible',
    locator: `getByRole('checkbox', { name: '${text}' })`,
    description: 'The todo is listed',
  },
];

export const brokenSteps: Step[] = [
  { action: 'navigate', value: '/todo/', description: 'Open the todo app' },
  {
    action: 'click',
    locator: "getByRole('button', { name: 'Archive everything' })",
    description: 'A button that does not exist',
  },
];

export const slowSteps: Step[] = Array.from({ length: 8 }, () => ({
  action: 'navigate' as const,
  value: '/slow',
  description: 'A slow page',
}));

/** The internal id of the application with this short id, for writing rows that reference it. */
export const applicationIdOf = (db: DB, shortId: string): Promise<string> => rowIdOf(db, 'applications', shortId);

/**
 * A test case row written directly, as burn-in would leave it (tests have no create call): `columns` sets the name
 * and any other column (the goal is the name unless given). Returns its id.
 */
export async function insertTestCaseRow(
  db: DB,
  owner: { projectId: string; applicationId: string },
  columns: Omit<Insertable<TestCasesTable>, 'id' | 'project_id' | 'application_id'> & { id?: string },
): Promise<string> {
  const id = columns.id ?? randomUUID();
  await db
    .insertInto('test_cases')
    .values({ goal: columns.name, ...columns, id, project_id: owner.projectId, application_id: owner.applicationId })
    .execute();
  return id;
}

/** A test case with recorded steps, enabled, as if burn-in had completed. */
export async function insertRecordedTestCase(
  db: DB,
  input: {
    projectId: string;
    applicationId: string;
    name: string;
    steps: Step[];
    resumeFrom?: string;
    waitFor?: string[];
  },
): Promise<string> {
  return insertTestCaseRow(db, input, {
    name: input.name,
    is_enabled: true,
    generation_status: 'COMPLETED',
    steps: JSON.stringify(input.steps),
    steps_version: 1,
    resume_from_test_case_id: input.resumeFrom ?? null,
    wait_for_test_case_ids: input.waitFor ?? [],
    created_at: new Date(),
    updated_at: new Date(),
  });
}

/**
 * The application "Shop" (web), created through `api` as a user would (with `environment` when given: replaying
 * its steps needs one), and its recorded test "login" (loginSteps), as the step-editing tests start from.
 */
export async function addShopWithLogin(
  api: {
    db: DB;
    tenant: { projectId: string };
    call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  },
  environment?: { name: string; url: string },
): Promise<{ appShortId: string; applicationId: string; testCaseId: string }> {
  const appShortId = (await api.call('POST', '/v1/applications', { name: 'Shop', kind: 'web' })).body.shortId as string;
  if (environment) await api.call('POST', `/v1/applications/${appShortId}/environments`, environment);
  const applicationId = await applicationIdOf(api.db, appShortId);
  const testCaseId = await insertRecordedTestCase(api.db, {
    projectId: api.tenant.projectId,
    applicationId,
    name: 'login',
    steps: loginSteps,
  });
  return { appShortId, applicationId, testCaseId };
}
