import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stepKinds } from '../../src/browser/steps/registry.js';
import { actionsWithElement } from '../../src/browser/steps/actions.js';
import { parseLocator, quote } from '../../src/domain/locators.js';
import type { Step } from '../../src/domain/steps.js';
import { testCaseFileJsonSchema, type TestCaseFile } from '../../src/schemas/test-case-file.js';
import { StepSchema } from '../../src/schemas/steps.js';
import { stepEditProblems } from '../../src/services/step-edits.js';
import { readTestCaseFile, writeTestCaseFile } from '../../src/services/test-case-file-text.js';
import { arbitraryFromSchema, type JsonSchema } from '../support/json-schema-arbitrary.js';

// A test-case file's text, without a database: what the writer writes the reader reads back identical, for steps of
// every kind in the step registry with generated locators, values and nested settings (quotes, newlines, `#`, `: `,
// `{{NAME}}`, leading spaces, unicode: everything YAML could take for something else); and the published JSON Schema
// in docs/ is the one the code generates.

const schemaUrl = 'https://proctor.test/schemas/test-case-file.json';
const published = testCaseFileJsonSchema() as { properties: { steps: { items: JsonSchema } } };
const stepItem = published.properties.steps.items;

/** Text YAML might read as something else, mixed with ordinary text. */
const tricky = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  fc.constantFrom(
    '{{PASSWORD}}',
    'Bearer {{API_TOKEN}}',
    'yes',
    'null',
    '0123',
    '1e3',
    '- item',
    '# not a comment',
    'key: value',
    '  leading and trailing  ',
    'line one\nline two\n',
    'tab\there',
    '"double" and \'single\'',
    '*alias',
    '&anchor',
    '!tag',
    '~',
    'ünïcødé ✓ 😀',
    '\r\nwindows',
  ),
);
const visible = tricky.filter((s) => s.trim().length > 0);

const locator = fc
  .tuple(
    fc.constantFrom('button', 'link', 'textbox', 'checkbox', 'heading', 'listitem'),
    visible,
    fc.constantFrom('role', 'text', 'label', 'css'),
  )
  .map(([role, name, how]) =>
    how === 'role'
      ? `getByRole('${role}', { name: ${quote(name)} })`
      : how === 'text'
        ? `getByText(${quote(name)})`
        : how === 'label'
          ? `getByLabel(${quote(name)})`
          : `locator('#item-${role}')`,
  )
  .filter((expression) => {
    try {
      parseLocator(expression);
      return true;
    } catch {
      return false;
    }
  });

// The nested settings as the published schema describes them (the same zod schema the import validates with).
const nested = (key: string) => arbitraryFromSchema(stepItem.properties![key]!);

const stepOfKind = (kind: (typeof stepKinds)[number]) =>
  fc
    .record(
      {
        action: fc.constantFrom(...kind.actions),
        locator: kind.element ? locator : fc.constant(undefined),
        fallbacks: fc.array(locator, { maxLength: 2 }),
        target: fc.record(
          { role: fc.constantFrom('button', 'link'), name: visible, text: visible },
          { requiredKeys: ['role'] },
        ),
        value: visible,
        description: visible,
        scroll: nested('scroll'),
        dialogs: nested('dialogs'),
        download: nested('download'),
        email: nested('email'),
        http: nested('http'),
        page: fc.integer({ min: 0, max: 3 }),
        opensPage: fc.boolean(),
        at: fc.constantFrom('/orders/123?tab=notes', 'https://other.test/x'),
      },
      { requiredKeys: ['action', 'description', 'value'] },
    )
    .map((step) => Object.fromEntries(Object.entries(step).filter(([, v]) => v !== undefined)) as unknown as Step)
    .filter(
      (step) =>
        (!actionsWithElement.has(step.action) || !!step.locator) &&
        StepSchema.safeParse(step).success &&
        stepEditProblems([step]).length === 0,
    );

const steps = fc.array(fc.oneof(...stepKinds.map(stepOfKind)), { minLength: 1, maxLength: 6 });

const file = fc.record(
  {
    format: fc.constant(1 as const),
    id: fc.uuid(),
    name: visible.map((s) => s.trim().slice(0, 80)).filter((s) => s.length > 0),
    application: fc.constant('app-shop_k3x9q2m7p1za'),
    goal: visible.map((s) => s.trim()).filter((s) => s.length > 0),
    expectedResult: visible.map((s) => s.trim()),
    labels: fc.uniqueArray(
      visible.map((s) => s.trim().replaceAll(',', ' ').slice(0, 50).trim()).filter((s) => s.length > 0),
      { maxLength: 3 },
    ),
    configs: fc.constant(['cfg_m1k3x9q2z0pa']),
    scenario: fc.constant('scenario_k3x9q2m1z0pa'),
    dependencies: fc.record(
      { resumeFrom: fc.uuid(), waitFor: fc.uniqueArray(fc.uuid(), { maxLength: 2 }) },
      { requiredKeys: [] },
    ),
    steps,
  },
  { requiredKeys: ['format', 'name', 'application', 'goal', 'steps'] },
) as fc.Arbitrary<TestCaseFile>;

describe('a test-case file', () => {
  it('reads back exactly what was written, for generated test cases with steps of every registered kind', () => {
    fc.assert(
      fc.property(file, (written) => {
        const text = writeTestCaseFile(written, schemaUrl);
        const read = readTestCaseFile(text).file;
        expect(read).toEqual(written);
        expect(writeTestCaseFile(read, schemaUrl)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('generates steps of every kind of the registry', () => {
    for (const kind of stepKinds) expect(fc.sample(stepOfKind(kind), 3)).toHaveLength(3);
  });

  it('is published in docs/ as the code generates it', () => {
    const inDocs = JSON.parse(readFileSync(new URL('../../docs/test-case-file.schema.json', import.meta.url), 'utf8'));
    // To update: node --import tsx scripts/test-case-file-schema.ts > docs/test-case-file.schema.json
    expect(inDocs).toEqual(testCaseFileJsonSchema());
  });
});
