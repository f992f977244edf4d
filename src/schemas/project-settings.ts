import { z } from '@hono/zod-openapi';
import { healPolicies } from '../domain/steps.js';
import { defaultTestRetries, flakeWindow, maxTestRetries, minRuleFlakeRate } from '../domain/flakiness.js';
import { defaultIssueResolveAfterRuns, maxIssueResolveAfterRuns } from '../domain/quality.js';

// Request and response shapes of the project settings route (src/api/routes/project-settings.ts); the dashboard's
// settings form validates with them too.

const healPolicy = z.enum(healPolicies).openapi({
  description:
    'What happens to locators a passing run had to heal: `review` (default) keeps them as a proposal on the test case ' +
    '(`GET /v1/test-cases/{id}/steps/proposals`, applied by `POST .../steps/{version}/accept`); `auto` saves them as the next steps version. ' +
    'Either way a heal only adds a locator in front of the recorded ones.',
  example: 'review',
});

const retries = z
  .number()
  .int()
  .min(0)
  .max(maxTestRetries)
  .openapi({
    description:
      `How many times a failed test of a run is executed again before it is reported (default ${defaultTestRetries}). ` +
      'A test that passes on a retry is PASSED with `flaky: true`; a test that cannot run as defined (`failureKind: test-definition`) is not retried.',
    example: 1,
  });

const quarantine = z
  .object({
    flakeRate: z
      .number()
      .min(minRuleFlakeRate)
      .max(1)
      .openapi({ description: 'Quarantine at this flake rate or above (a fraction: 0.3 is 30%)', example: 0.3 }),
    minRuns: z
      .number()
      .int()
      .min(1)
      .max(flakeWindow)
      .openapi({ description: `…over at least this many of the last ${flakeWindow} finished runs`, example: 10 }),
  })
  .strict()
  .nullable()
  .openapi({
    description:
      'The quarantine rule, checked when a run is written; null (default) is off. A quarantined test (by this rule or by its own ' +
      '`quarantined` flag) still runs and reports, with `quarantined: true`, but its failure fails neither the run nor a change review.',
  });

const issueResolveAfterRuns = z
  .number()
  .int()
  .min(1)
  .max(maxIssueResolveAfterRuns)
  .openapi({
    description: `An open issue (\`GET /v1/issues\`) resolves itself after this many passing runs, without it, of the tests that saw it (default ${defaultIssueResolveAfterRuns}).`,
    example: 3,
  });
const signalIgnoreUrls = z
  .array(z.string().min(1).max(500))
  .max(50)
  .openapi({
    description:
      'Request URLs whose failures are not quality signals: `*` matches any characters, a pattern without `*` any URL containing it.',
    example: ['*/analytics/*', 'https://status.example.com'],
  });

export const ProjectSettingsSchema = z
  .object({ healPolicy, retries, quarantine, issueResolveAfterRuns, signalIgnoreUrls })
  .openapi('ProjectSettings');
export const UpdateProjectSettings = z
  .object({
    healPolicy: healPolicy.optional(),
    retries: retries.optional(),
    quarantine: quarantine.optional(),
    issueResolveAfterRuns: issueResolveAfterRuns.optional(),
    signalIgnoreUrls: signalIgnoreUrls.optional(),
  })
  .strict()
  .openapi('UpdateProjectSettings');
