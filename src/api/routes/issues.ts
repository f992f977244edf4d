import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { resource } from '../resource-routes.js';
import {
  ExportIssue,
  ExportedIssue,
  IssueIdParams,
  IssueSchema,
  IssuesPage,
  IssuesQuery,
  UpdateIssue,
  maxIssuesLimit,
} from '../../schemas/issues.js';
import { exportIssue } from '../../services/issue-export.js';
import { getIssue, listProjectIssues, setIssueStatus } from '../../services/issues.js';

const tags = ['Issues'];
const issues = resource({
  path: '/v1/issues/{id}',
  tags,
  noun: ['an issue', 'issues'],
  schema: IssueSchema,
  params: IssueIdParams,
});

const routes = {
  // A page with its total rather than the standard list.
  list: operation({
    method: 'get',
    path: '/v1/issues',
    tags,
    summary: "The project's quality issues, most recently seen first",
    description:
      'Console errors and warnings, uncaught exceptions, failed requests (network errors; HTTP ≥ 400 for documents, XHR and fetch) and ' +
      'axe-core violations (WCAG 2.x A and AA) seen by burn-ins and runs, deduplicated by fingerprint (kind, normalised message or rule ' +
      'and element, page template). Runs of change reviews are compared, not counted. ' +
      `Filters: \`status\`, \`kind\`, \`severity\`. \`limit\` defaults to 50 (maximum ${maxIssuesLimit}).`,
    query: IssuesQuery,
    answers: IssuesPage,
    answer: 'Issues',
  }),
  get: issues.get({ summary: 'One issue' }),
  update: issues.update(UpdateIssue, {
    summary: "Change an issue's status",
    description: '`resolved` by hand (a new sighting reopens it), `ignored` (stays ignored), or `open` again.',
    answer: 'The issue after the change',
  }),
  export: operation({
    method: 'post',
    path: '/v1/issues/{id}/export',
    tags,
    summary: "File the issue in the project's GitHub or GitLab",
    description:
      'Through the Git integration (`/v1/git-integrations`). The filed issue carries a hidden marker with the fingerprint: exporting again ' +
      'finds it (`created: false`) instead of filing a duplicate.',
    params: IssueIdParams,
    body: ExportIssue,
    answers: ExportedIssue,
    answer: 'Where it is filed',
  }),
};

export function registerIssues(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId, query }) => {
      const { issues, total } = await listProjectIssues(services, projectId, query);
      return { issues, total, limit: query.limit, offset: query.offset };
    },
    get: ({ services, projectId, param }) => getIssue(services, projectId, param.id),
    export: ({ services, projectId, param, body }) => exportIssue(services, projectId, param.id, body),
    update: ({ services, projectId, param, body }) => setIssueStatus(services, projectId, param.id, body.status),
  });
}
