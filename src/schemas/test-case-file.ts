// A test case as a file (YAML): what a team keeps in its repository and reviews like code. One zod schema both
// validates an imported file and is the published JSON Schema (testCaseFileJsonSchema, served at
// /schemas/test-case-file.json and written to docs/test-case-file.schema.json), so the two cannot disagree.
// A step is the API's Step (steps.ts): the file holds exactly what a steps edit takes.
import { z } from '@hono/zod-openapi';
import { name, shortId, uuid } from './common.js';
import { StepSchema } from './steps.js';
import { distinctList, expectedResult, goal, labels } from './test-cases.js';

/** Where the JSON Schema is served, below the API's public address. */
export const testCaseFileSchemaPath = '/schemas/test-case-file.json';

export const TestCaseFileSchema = z.object({
  format: z.literal(1).describe('The version of this file format'),
  id: uuid()
    .optional()
    .describe('The test case this file is: absent, an import creates a new one; present, it must be of the project'),
  name: name(80),
  application: shortId('application').describe('Short id of the application the test case exercises'),
  goal,
  expectedResult: expectedResult.optional(),
  labels: labels.optional(),
  configs: distinctList(shortId('config'), 50, 'config')
    .optional()
    .describe('Short ids of the configs its steps reference as {{NAME}}; a secret never appears in the file'),
  scenario: shortId('scenario').optional(),
  dependencies: z
    .object({
      resumeFrom: uuid().optional().describe('Id of the test case it continues from, in its browser state'),
      waitFor: distinctList(uuid(), 100, 'test case')
        .optional()
        .describe('Ids of test cases that must pass before it runs'),
    })
    .optional(),
  steps: z.array(StepSchema).min(1).max(500).describe('The recorded steps, replayed in order without the model'),
});

export type TestCaseFile = z.output<typeof TestCaseFileSchema>;

// Every object of the file refuses keys it does not list (the importer reports them as unknown fields), and the
// schema says so, so an editor underlines a misspelt key as the import would refuse it.
function closeObjects(ctx: { jsonSchema: Record<string, unknown> }): void {
  const s = ctx.jsonSchema;
  if (s.type === 'object' && s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
}

/** The published JSON Schema of a test-case file. */
export function testCaseFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(TestCaseFileSchema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: closeObjects,
  });
  return {
    ...schema,
    $id: 'https://proctor.dev/schemas/test-case-file.json',
    title: 'Proctor test case',
    description:
      'A Proctor test case as a file: GET /v1/test-cases/{testCaseId}/file exports it, POST /v1/test-cases/file imports it (docs/test-case-files.md)',
  };
}

/** Export: the file of a test case, named after it. */
export const TestCaseFileAnswer = z
  .object({
    fileName: z.string().openapi({ example: 'checkout-with-a-saved-card.proctor.yaml' }),
    file: z.string().openapi({ description: 'The YAML text; POST /v1/test-cases/file takes it back as it is' }),
  })
  .openapi('TestCaseFile');

export const ImportTestCaseFile = z
  .object({
    file: z
      .string()
      .max(1_000_000)
      .openapi({
        description: `A test-case file (YAML, or JSON), as the export gives it; its JSON Schema is served at ${testCaseFileSchemaPath}`,
      }),
  })
  .openapi('ImportTestCaseFile');

export const ImportedTestCaseFile = z
  .object({
    id: z.string().uuid(),
    created: z.boolean().openapi({ description: 'A new test case (the file had no `id`)' }),
    changed: z.array(z.string()).openapi({
      description: 'The fields the import changed, in file order; empty when the test case already was the file',
      example: ['goal', 'steps'],
    }),
    stepsVersion: z.number().int().openapi({ description: 'Its steps version after the import' }),
  })
  .openapi('ImportedTestCaseFile');
