// Proctor's custom search attributes: what an operator filters workflows by in the Temporal UI and in
// `temporal workflow list --query` ("ProctorProject = '…' AND ProctorResult = 'FAILED'"). Defined once here, for the
// starters (src/temporal/lifecycle.ts), the workflows that upsert them (workflows/search-attributes.ts) and their
// registration (src/temporal/search-attributes.ts: the dev server's flags and `proctor migrate`). A leaf: bundled
// into the workflow sandbox.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/**
 * The keys. Values are the ids a user sees in the API and the dashboard (a run's and a plan's short id, an
 * application's short id, a project's and a test case's id): stable where names change, and free of quotes.
 */
export const searchAttributes = {
  project: defineSearchAttributeKey('ProctorProject', SearchAttributeType.KEYWORD),
  application: defineSearchAttributeKey('ProctorApplication', SearchAttributeType.KEYWORD),
  plan: defineSearchAttributeKey('ProctorPlan', SearchAttributeType.KEYWORD),
  run: defineSearchAttributeKey('ProctorRun', SearchAttributeType.KEYWORD),
  testCase: defineSearchAttributeKey('ProctorTestCase', SearchAttributeType.KEYWORD),
  /** What started it: a run's trigger (API, SCHEDULE, CI…), or CHAT / CHANGE_REVIEW for a burn-in started there. */
  trigger: defineSearchAttributeKey('ProctorTrigger', SearchAttributeType.KEYWORD),
  /** How it ended: a run's PASSED / FAILED / SKIPPED (or ERROR, CANCELLED), a burn-in's COMPLETED / FAILED. */
  result: defineSearchAttributeKey('ProctorResult', SearchAttributeType.KEYWORD),
  /**
   * Why it failed, by src/domain/verdicts.ts `failureKinds`. A list: a failed run's tests can fail for several
   * reasons, and `ProctorFailureKind = 'environment'` matches a run where any did.
   */
  failureKind: defineSearchAttributeKey('ProctorFailureKind', SearchAttributeType.KEYWORD_LIST),
} as const;

/** What a starter knows about a workflow, by attribute; absent ones are not set. */
export type ProctorAttributes = Partial<
  Record<Exclude<keyof typeof searchAttributes, 'failureKind'>, string> & { failureKind: string[] }
>;

/** The typed pairs for a start or an upsert (absent and empty values left out: an upsert of nothing is no command). */
export function searchAttributePairs(attrs: ProctorAttributes): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  for (const name of Object.keys(searchAttributes) as (keyof typeof searchAttributes)[]) {
    const value = attrs[name];
    if (value === undefined || value.length === 0) continue;
    if (name === 'failureKind') pairs.push({ key: searchAttributes.failureKind, value: value as string[] });
    else pairs.push({ key: searchAttributes[name], value: value as string });
  }
  return pairs;
}
