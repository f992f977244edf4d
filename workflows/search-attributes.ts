// How a workflow keeps its search attributes (workflows/search-attributes-contract.ts) up to date: it upserts what
// it learns (its result, why it failed) and hands its children theirs. Only when its own start set them: the
// starter sets them only where the namespace has them registered (src/temporal/search-attributes.ts), and an
// upsert of an unregistered attribute would fail the workflow task on every try. So a namespace without them (the
// time-skipping test server, a cluster nobody migrated) runs every workflow exactly as before, without them.
import type { SearchAttributePair } from '@temporalio/common';
import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { searchAttributePairs, searchAttributes, type ProctorAttributes } from './search-attributes-contract.js';

/** Whether this workflow's start set Proctor's attributes (every start that sets any sets the project). */
export function hasProctorAttributes(): boolean {
  return workflowInfo().typedSearchAttributes.get(searchAttributes.project) !== undefined;
}

/**
 * Upserts `attrs` on this workflow. The upsert is a command: histories recorded before it (and any without
 * attributes) replay without one, behind the `search-attributes` patch.
 */
export function upsertProctorAttributes(attrs: ProctorAttributes): void {
  const pairs = searchAttributePairs(attrs);
  if (pairs.length === 0 || !hasProctorAttributes()) return;
  if (!patched('search-attributes')) return;
  upsertSearchAttributes(pairs);
}

/**
 * The start option giving a child this workflow's project and `attrs`, when this workflow has attributes itself
 * (otherwise none: the namespace may not know them).
 */
export function childAttributes(attrs: ProctorAttributes): { typedSearchAttributes?: SearchAttributePair[] } {
  if (!hasProctorAttributes()) return {};
  const project = workflowInfo().typedSearchAttributes.get(searchAttributes.project);
  return { typedSearchAttributes: searchAttributePairs({ project, ...attrs }) };
}
