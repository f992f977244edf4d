import { describe, expect, it } from 'vitest';
import type { EmailStep } from '../../src/domain/inbox.js';
import type { HttpStep } from '../../src/domain/http-step.js';
import type { Step, StepTarget } from '../../src/domain/steps.js';
import type { StepDialog, StepDownload } from '../../src/domain/step-events.js';
import { StepSchema } from '../../src/schemas/steps.js';
import { stepEditProblems } from '../../src/services/step-edits.js';

// The API's step schema is what an edit of the steps (PUT /v1/test-cases/{id}/steps) keeps of a step: zod drops what
// it does not list, silently. A mail step lost its subject and code shape that way, and an http_request step its
// call. `Required<…>` makes every field of a recorded step part of this fixture, so a field added to `Step` (or to
// the settings it nests) fails to compile here until it is, and then fails the test until the schema keeps it.

const target: Required<StepTarget> = { role: 'button', name: 'Send', text: 'Send' };
const email: Required<EmailStep> = {
  subject: 'Your code',
  from: 'acme',
  timeoutMs: 20_000,
  linkPattern: '/verify',
  expects: ['code', 'link'],
  codeShape: 'AAAA-AAAA',
};
const http: Required<HttpStep> = {
  method: 'POST',
  url: '/api/notes',
  headers: { authorization: 'Bearer {{API_TOKEN}}' },
  body: '{"title":"Milk"}',
  status: 201,
  json: [{ path: '$.title', equals: 'Milk' }],
  save: [{ name: 'NOTE_ID', path: '$.id', secret: false }],
};
const dialog: Required<StepDialog> = { type: 'prompt', message: 'Your name?', accept: true, promptText: 'Ada' };
const download: Required<StepDownload> = {
  fileNamePattern: '^invoice-\\d+\\.pdf$',
  minBytes: 1,
  maxBytes: 1_000_000,
  type: 'pdf',
};

const everyField: Required<Step> = {
  action: 'click',
  locator: "getByRole('button', { name: 'Send' })",
  fallbacks: ["getByText('Send')"],
  target,
  value: 'x',
  description: 'Send the note',
  email,
  dropTarget: { locator: "getByRole('listitem', { name: 'Done' })", fallbacks: ["getByText('Done')"], target },
  scroll: { direction: 'down', pixels: 200, untilText: 'Row 250' },
  page: 1,
  opensPage: true,
  dialogs: [dialog],
  download,
  projectFile: true,
  http,
  visual: { baseline: '0a1b2c3d4e5f', masks: ["getByRole('status')"], threshold: 0.2, maxDiffPixelRatio: 0.01 },
  at: '/orders/123?tab=notes',
};

describe('the API step schema keeps every field of a recorded step', () => {
  it('parses a step with every field (and every nested setting) back to itself', () => {
    expect(StepSchema.parse(everyField)).toEqual(everyField);
  });

  it('an edited http_request step keeps its call and checks', () => {
    const step: Step = { action: 'http_request', value: '/api/notes', description: 'Create a note over the API', http };
    expect(stepEditProblems([step])).toEqual([]);
    expect(StepSchema.parse(step)).toEqual(step);
  });

  it.each([
    ['a method HTTP does not have', { ...http, method: 'FETCH' }, /GET/],
    ['a status outside 100-599', { ...http, status: 700 }, /599/],
    ['a saved variable that is not a name', { ...http, save: [{ name: 'note id', path: '$.id' }] }, /variable name/],
  ])('refuses %s', (_, bad, reason) => {
    const problems = stepEditProblems([
      { action: 'http_request', value: '/api/notes', description: 'Call', http: bad as HttpStep },
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(reason);
  });
});
