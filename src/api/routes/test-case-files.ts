import { createRoute, z } from '@hono/zod-openapi';
import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { Params } from '../../schemas/test-cases.js';
import {
  ImportedTestCaseFile,
  ImportTestCaseFile,
  TestCaseFileAnswer,
  testCaseFileJsonSchema,
  testCaseFileSchemaPath,
} from '../../schemas/test-case-file.js';
import { tokenActor } from '../../services/audit-log.js';
import { exportTestCaseFile, importTestCaseFile } from '../../services/test-case-files.js';

// A test case as a file (docs/test-case-files.md): export, import, and the file's JSON Schema for editors.

const tags = ['Test cases'];

const routes = {
  export: operation({
    method: 'get',
    path: '/v1/test-cases/{testCaseId}/file',
    tags,
    summary: 'Export a test case as a file (YAML)',
    description:
      'Its name, goal, expected result, labels, configs, scenario, dependencies and recorded steps with their locators, fallbacks, ' +
      'recorded targets and values. Secrets appear only as `{{NAME}}`: a secret config value found in a step is written as its reference. ' +
      `The file's JSON Schema is served at \`${testCaseFileSchemaPath}\`. 409 while no steps are recorded.`,
    params: Params,
    answers: TestCaseFileAnswer,
    answer: 'The file',
    conflict: 'No recorded steps yet',
  }),
  import: operation({
    method: 'post',
    path: '/v1/test-cases/file',
    tags,
    summary: 'Import a test-case file: create the test case, or make the existing one what the file says',
    description:
      'Without `id` the file becomes a new test case (disabled, its steps recorded as version 1, no burn-in); with `id` that test case of ' +
      'the project takes every field of the file (absent fields are cleared), and a new steps version only when the steps differ. ' +
      'Importing the file an export gave changes nothing. Every field is checked and so is every reference (404 for an application, ' +
      'config, scenario or test case the project does not have); a refusal answers `{ message }` starting with the line and column ' +
      'of the problem in the file, and writes nothing.',
    body: ImportTestCaseFile,
    answers: ImportedTestCaseFile,
    answer: 'Imported',
    conflict: 'The test case has no recorded steps yet, or its steps changed during the import',
  }),
};

const schemaRoute = createRoute({
  method: 'get',
  path: testCaseFileSchemaPath,
  tags,
  summary: 'The JSON Schema of a test-case file',
  description:
    'Public, for editors and CI checks: the same schema the import validates with. An exported file names it in its first line ' +
    '(`# yaml-language-server: $schema=…`). Also in the repository as docs/test-case-file.schema.json.',
  responses: {
    200: {
      description: 'A JSON Schema (draft 2020-12)',
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
  },
});

export function registerTestCaseFiles(app: OpenApiApp): void {
  serveResource(app, routes, {
    export: ({ services, projectId, param: { testCaseId } }) => exportTestCaseFile(services, { projectId, testCaseId }),
    import: ({ services, projectId, caller, body }) =>
      importTestCaseFile(services, { projectId, text: body.file, actor: tokenActor(caller.tokenId) }),
  });
  const schema = testCaseFileJsonSchema();
  app.openapi(schemaRoute, (c) => c.json(schema, 200));
}
