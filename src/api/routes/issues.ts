import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
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
const routes = {
  list: createRoute({
    method: 'get',
    path: '/v1/issues',
    tags,
    security: bearerSecurity,
    summary: "The project's quality issues, most recently seen first",
    description:
      'Console errors and warnings, uncaught exceptions, failed requests (network errors; HTTP ≥ 400 for documents, XHR and fetch) and ' +
      'axe-core violations (WCAG 2.x A and AA) seen by burn-ins and runs, deduplicated by fingerprint (kind, normalised message or rule ' +
      'and element, page template). Runs of change reviews are compared, not counted. ' +
      `Filters: \`status\`, \`kind\`, \`severity\`. \`limit\` defaults to 50 (maximum ${maxIssuesLimit}).`,
    request: { query: IssuesQuery },
    responses: { 200: json(IssuesPage, 'Issues'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get',
    path: '/v1/issues/{id}',
    tags,
    security: bearerSecurity,
    summary: 'One issue',
    request: { params: IssueIdParams },
    responses: { 200: json(IssueSchema, 'The issue'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch',
    path: '/v1/issues/{id}',
    tags,
    security: bearerSecurity,
    summary: "Change an issue's status",
    description: '`resolved` by hand (a new sighting reopens it), `ignored` (stays ignored), or `open` again.',
    request: { params: IssueIdParams, body: jsonBody(UpdateIssue) },
    responses: { 200: json(IssueSchema, 'The issue after the change'), ...errorResponses },
  }),
  export: createRoute({
    method: 'post',
    path: '/v1/issues/{id}/export',
    tags,
    security: bearerSecurity,
    summary: "File the issue in the project's GitHub or GitLab",
    description:
      'Through the Git integration (`/v1/git-integrations`). The filed issue carries a hidden marker with the fingerprint: exporting again ' +
      'finds it (`created: false`) instead of filing a duplicate.',
    request: { params: IssueIdParams, body: jsonBody(ExportIssue) },
    responses: { 200: json(ExportedIssue, 'Where it is filed'), ...errorResponses },
  }),
};

export function registerIssues(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const { issues, total } = await listProjectIssues(c.get('services'), c.get('caller').projectId, q);
    return c.json({ issues, total, limit: q.limit, offset: q.offset }, 200);
  });
  app.openapi(routes.get, async (c) =>
    c.json(await getIssue(c.get('services'), c.get('caller').projectId, c.req.valid('param').id), 200),
  );
  app.openapi(routes.export, async (c) => {
    const services = c.get('services');
    return c.json(
      await exportIssue(services, c.get('caller').projectId, c.req.valid('param').id, c.req.valid('json')),
      200,
    );
  });
  app.openapi(routes.update, async (c) =>
    c.json(
      await setIssueStatus(
        c.get('services'),
        c.get('caller').projectId,
        c.req.valid('param').id,
        c.req.valid('json').status,
      ),
      200,
    ),
  );
}
