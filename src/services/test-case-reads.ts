// Test cases as the list and detail routes, the dashboard and the MCP tools read them. Apart from test-cases.ts,
// which writes them under the dependency rules, because reading needs none of those rules and is served cached.
import { readProjectList, type JsonText } from '../db/queries/project-lists.js';
import { getTestCase, listTestCases, type TestCaseSummary, type TestCaseView } from '../db/queries/test-case-views.js';
import { NotFoundError } from '../domain/errors.js';
import { healProposalView, listHealProposals, type HealProposal } from './heal-proposals.js';
import { usageTotals } from './llm-usage.js';
import type { UsageTotals } from '../domain/llm-usage.js';
import type { ServiceContext } from './context.js';

/** The filters of `GET /v1/test-cases` as the query string has them: `labels` comma-separated, all must match. */
export interface FindTestCasesInput {
  projectId: string;
  applicationShortId?: string;
  labels?: string;
  isEnabled?: 'true' | 'false';
  limit: number;
  offset: number;
}

/** One page of matching test cases; NotFoundError for an application the project does not have. */
export async function findTestCases(
  deps: ServiceContext,
  input: FindTestCasesInput,
): Promise<{ testCases: TestCaseSummary[]; total: number; limit: number; offset: number }> {
  const labels = input.labels
    ?.split(',')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const page = { limit: input.limit, offset: input.offset };
  const isEnabled = input.isEnabled === undefined ? undefined : input.isEnabled === 'true';
  const found = await listTestCases(
    deps.db,
    input.projectId,
    { applicationShortId: input.applicationShortId, labels, isEnabled },
    page,
  );
  if (!found) throw new NotFoundError('Application');
  return { ...found, ...page };
}

/** `findTestCases` as the list route sends it: JSON text, kept per query until a write forgets the project's lists. */
export function testCaseListText(
  deps: ServiceContext,
  input: FindTestCasesInput,
): Promise<JsonText<Awaited<ReturnType<typeof findTestCases>>>> {
  const key = `test-cases ${JSON.stringify([input.applicationShortId, input.labels, input.isEnabled, input.limit, input.offset])}`;
  return readProjectList(deps.db, input.projectId, key, () => findTestCases(deps, input));
}

/** A test case with the heal proposals still waiting for a person's decision (newest first). */
export async function showTestCase(
  deps: ServiceContext,
  input: { projectId: string; testCaseId: string },
): Promise<TestCaseView & { healProposals: HealProposal[]; usage: UsageTotals }> {
  const testCaseId = input.testCaseId.toLowerCase();
  const view = await getTestCase(deps.db, input.projectId, testCaseId);
  if (!view) throw new NotFoundError('Test case');
  return {
    ...view,
    healProposals: await listHealProposals(deps, input.projectId, testCaseId, { pendingOnly: true }),
    // What its burn-ins' LLM calls came to (an extension to the spec).
    usage: await usageTotals(deps, input.projectId, { testCaseId: view.id, purpose: 'burn_in' }),
  };
}

/** A test case as `GET /v1/test-cases/{id}` and the MCP tool `get_test_case` show it. */
export const testCaseWithProposalsView = (found: Awaited<ReturnType<typeof showTestCase>>) => ({
  ...found,
  healProposals: found.healProposals.map(healProposalView),
});
