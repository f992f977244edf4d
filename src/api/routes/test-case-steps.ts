import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { ApiError } from '../errors.js';
import { HealProposalSchema } from '../../schemas/heal-proposals.js';
import { EditSteps, HealProposalList, SavedStepsVersion, VersionParams } from '../../schemas/step-edits.js';
import { Params } from '../../schemas/test-cases.js';
import { tokenActor } from '../../services/audit-log.js';
import {
  acceptHealProposal,
  HealProposalError,
  healProposalView as view,
  listHealProposals,
  rejectHealProposal,
} from '../../services/heal-proposals.js';
import { saveEditedSteps } from '../../services/step-edits.js';

// A test case's steps as people correct them: edit them into a new version (the dashboard's step editor does the
// same through the same service), and the heal proposals: list them, accept or reject one.

const tags = ['Test cases'];

/** Accepting and rejecting a proposal: the proposal as decided, or 409 when that can no longer be. */
const decision = {
  tags,
  method: 'post',
  params: VersionParams,
  answers: HealProposalSchema,
  conflict: 'Already decided, or the steps changed since the proposal was made',
} as const;

const routes = {
  edit: operation({
    method: 'put',
    path: '/v1/test-cases/{testCaseId}/steps',
    tags,
    summary: 'Save edited steps as the next steps version',
    description:
      'Every locator is parsed as replay parses it, and every step that acts on or checks an element needs one; an action or assertion needs its value. ' +
      'Refused edits answer 400 naming the step and field, and change nothing. Pending heal proposals of older versions are superseded.',
    params: Params,
    body: EditSteps,
    answers: SavedStepsVersion,
    answer: 'Saved: the new steps version',
    conflict: 'The steps changed since `basedOnVersion`, or none are recorded yet',
  }),
  list: operation({
    method: 'get',
    path: '/v1/test-cases/{testCaseId}/steps/proposals',
    tags,
    summary: 'Heal proposals of a test case, newest first',
    description:
      'Under the `review` heal policy (see `/v1/project/settings`) a passing run that needed self-healing proposes its healed steps here.',
    params: Params,
    answers: HealProposalList,
    answer: 'Proposals',
  }),
  accept: operation({
    ...decision,
    path: '/v1/test-cases/{testCaseId}/steps/{version}/accept',
    summary: 'Accept a heal proposal: its steps become the given steps version',
    answer: 'Accepted',
  }),
  reject: operation({
    ...decision,
    path: '/v1/test-cases/{testCaseId}/steps/{version}/reject',
    summary: 'Reject a heal proposal: the steps stay as they are',
    answer: 'Rejected',
  }),
};

async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof HealProposalError) throw new ApiError(err.kind === 'not_found' ? 404 : 409, err.message);
    throw err;
  }
}

export function registerTestCaseSteps(app: OpenApiApp): void {
  serveResource(app, routes, {
    edit: ({ services, projectId, caller, param, body: { basedOnVersion, steps } }) =>
      saveEditedSteps(services, {
        projectId,
        testCaseId: param.testCaseId.toLowerCase(),
        basedOnVersion,
        steps,
        actor: tokenActor(caller.tokenId),
      }),
    list: async ({ services, projectId, param }) => {
      const proposals = await mapped(listHealProposals(services, projectId, param.testCaseId.toLowerCase()));
      return { proposals: proposals.map(view) };
    },
    accept: async ({ services, projectId, caller, param: { testCaseId, version } }) =>
      view(
        await mapped(
          acceptHealProposal(services, projectId, testCaseId.toLowerCase(), version, tokenActor(caller.tokenId)),
        ),
      ),
    reject: async ({ services, projectId, caller, param: { testCaseId, version } }) =>
      view(
        await mapped(
          rejectHealProposal(services, projectId, testCaseId.toLowerCase(), version, tokenActor(caller.tokenId)),
        ),
      ),
  });
}
