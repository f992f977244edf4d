import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { CoverageSchema, SuggestionListSchema, SuggestionParams, SuggestionSchema } from '../../schemas/coverage.js';
import { ApplicationParams } from '../../schemas/applications.js';
import { DiscoveryParams } from '../../schemas/discoveries.js';
import { getApplicationCoverage } from '../../services/application-coverage.js';
import { acceptSuggestion, getDiscoverySuggestions, rejectSuggestion } from '../../services/discovery-suggestions.js';

// The coverage map and the suggested tests (issue 34): what the enabled tests cover of the latest completed
// discovery's map, and the tests a completed discovery suggests for what they do not.

const tags = ['Discovery'];
const suggestion = '/v1/discoveries/{discoveryShortId}/suggestions/{suggestionId}';

const routes = {
  coverage: operation({
    method: 'get',
    path: '/v1/applications/{applicationShortId}/coverage',
    tags,
    summary: "Which enabled tests visit, act on and assert on each page pattern and form of the application's map",
    description:
      'The map is that of the latest COMPLETED discovery of the application (404 when there is none: start one). ' +
      "A test's steps count on the page they were recorded on; a test counts while it is enabled, with its last pass.",
    params: ApplicationParams,
    answers: CoverageSchema,
    answer: 'The coverage map',
  }),
  suggestions: operation({
    method: 'get',
    path: '/v1/discoveries/{discoveryShortId}/suggestions',
    tags,
    summary: 'Tests suggested for the forms and pages no enabled test covers, best first',
    description:
      'Written when the discovery completes; none is proposed that the project was suggested before (a rejected ' +
      'one never comes back).',
    params: DiscoveryParams,
    answers: SuggestionListSchema,
    answer: 'The suggestions',
  }),
  accept: operation({
    method: 'post',
    path: `${suggestion}/accept`,
    tags,
    summary: 'Accept a suggestion: its test case is created and burns in as POST /v1/test-cases does',
    params: SuggestionParams,
    answers: SuggestionSchema,
    answer: 'Accepted; `testCaseId` is the new test case',
    conflict: 'The suggestion was accepted or rejected already',
    overBudget: "The project's daily LLM budget is spent: the burn-in cannot start",
    unavailable:
      'The test case was saved (marked FAILED) but its burn-in could not start; the suggestion stays proposed',
  }),
  reject: operation({
    method: 'post',
    path: `${suggestion}/reject`,
    tags,
    summary: 'Reject a suggestion: no discovery of the project proposes it again',
    params: SuggestionParams,
    answers: SuggestionSchema,
    answer: 'Rejected',
    conflict: 'The suggestion was accepted or rejected already',
  }),
};

export function registerCoverage(app: OpenApiApp): void {
  serveResource(app, routes, {
    coverage: ({ services, projectId, param }) => getApplicationCoverage(services, projectId, param.applicationShortId),
    suggestions: ({ services, projectId, param }) =>
      getDiscoverySuggestions(services, projectId, param.discoveryShortId),
    accept: ({ services, logger, projectId, param }) =>
      acceptSuggestion({ ...services, logger }, projectId, param.discoveryShortId, param.suggestionId),
    reject: ({ services, projectId, param }) =>
      rejectSuggestion(services, projectId, param.discoveryShortId, param.suggestionId),
  });
}
