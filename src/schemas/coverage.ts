import { z } from '@hono/zod-openapi';
import { pathParams, shortId, uuid } from './common.js';
import { DiscoverySchema } from './discoveries.js';
import { suggestionStatuses } from '../domain/discovery-run.js';

// Response shapes of the coverage map and the suggested tests (issue 34), src/api/routes/coverage.ts.

const TestUse = z
  .object({
    testId: z.string().uuid(),
    name: z.string(),
    lastPassedAt: z.string().datetime().nullable().openapi({ description: 'Its last passing run, null if none' }),
    steps: z.array(z.number().int()).openapi({ description: 'Its steps (0-based) that do so' }),
  })
  .openapi('CoverageTestUse');

const PatternCoverage = z.object({
  pattern: z.string().openapi({ example: '/orders/{id}' }),
  visitedBy: z.array(TestUse),
  actedOnBy: z.array(TestUse).openapi({ description: 'Tests that click, fill, select... on its pages' }),
  assertedBy: z.array(TestUse).openapi({ description: 'Tests with an assertion on its pages' }),
  lastPassedAt: z.string().datetime().nullable(),
  covered: z.boolean().openapi({ description: 'Some enabled test visits it' }),
  forms: z.array(z.string()).openapi({ description: 'Ids of the forms on it' }),
});

const FormCoverage = z.object({
  id: z.string().openapi({ description: 'The form across the patterns it is on: `<key>@<action>`' }),
  key: z.string(),
  name: z.string(),
  method: z.enum(['get', 'post', 'dialog']),
  action: z.string(),
  patterns: z.array(z.string()),
  actedOnBy: z.array(TestUse).openapi({ description: 'Tests that fill or operate one of its fields or its submit' }),
  submittedBy: z.array(TestUse),
  assertedBy: z.array(TestUse).openapi({ description: 'Tests that assert after they first act on it' }),
  lastPassedAt: z.string().datetime().nullable(),
  covered: z.boolean().openapi({ description: 'Some enabled test acts on it' }),
});

const count = z.number().int().min(0);

export const CoverageSchema = z
  .object({
    discovery: DiscoverySchema,
    patterns: z.array(PatternCoverage),
    forms: z.array(FormCoverage),
    totals: z.object({
      patterns: z.object({ total: count, covered: count, uncovered: count, actedOn: count, asserted: count }),
      forms: z.object({ total: count, covered: count, uncovered: count, submitted: count, asserted: count }),
    }),
    outsideMap: z
      .array(z.object({ pattern: z.string(), testIds: z.array(z.string().uuid()) }))
      .openapi({ description: 'Patterns the tests visit that the discovery did not reach' }),
  })
  .openapi('Coverage');

export const SuggestionSchema = z
  .object({
    id: z.string().uuid(),
    rank: z.number().int().min(1).openapi({ description: '1: the most worth writing' }),
    status: z.enum(suggestionStatuses),
    name: z.string(),
    goal: z.string(),
    expectedResult: z.string(),
    reason: z.string().openapi({ description: 'Why it matters; says so when the model did not write it' }),
    startUrl: z.string().openapi({ description: 'The page it starts on (path and query)', example: '/cart' }),
    covers: z.object({ patterns: z.array(z.string()), forms: z.array(z.string()) }),
    testCaseId: z.string().uuid().nullable().openapi({ description: 'The test case created when it was accepted' }),
    createdAt: z.string().datetime(),
    decidedAt: z.string().datetime().nullable(),
  })
  .openapi('DiscoverySuggestion');

export const SuggestionListSchema = z
  .object({ discovery: DiscoverySchema, suggestions: z.array(SuggestionSchema) })
  .openapi('DiscoverySuggestions');

export const SuggestionParams = pathParams({ discoveryShortId: shortId('discovery'), suggestionId: uuid() });
