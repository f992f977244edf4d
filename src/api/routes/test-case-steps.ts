import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { ApiError } from '../errors.js';
import { uuid } from '../schemas/common.js';
import { StepSchema } from '../schemas/test-cases.js';
import { acceptHealProposal, HealProposalError, listHealProposals, rejectHealProposal, type HealProposal } from '../../services/heal-proposals.js';

// Heal proposals: under the project's `review` heal policy a passing run that needed the LLM to re-find an
// element keeps its healed steps here, and a person applies or drops them.

const HealedStepSchema = z
  .object({
    index: z.number().int().openapi({ description: '0-based index into the steps (step N in messages is index N - 1)' }),
    from: z.string().nullable().optional(),
    to: z.string(),
    via: z.enum(['fallback', 'llm']).openapi({ description: '`fallback`: a recorded alternative matched; `llm`: the model re-found the element and the pick was checked' }),
    reason: z.string().optional().openapi({ description: "The model's justification (llm only)" }),
  })
  .openapi('HealedStep');

const HealProposalSchema = z
  .object({
    testCaseId: z.string().uuid(),
    basedOnVersion: z.number().int(),
    version: z.number().int().openapi({ description: 'The steps version accepting this proposal creates' }),
    status: z.enum(['PENDING', 'ACCEPTED', 'REJECTED', 'SUPERSEDED']).openapi({ description: 'SUPERSEDED: the steps changed before anyone decided' }),
    steps: z.array(StepSchema).openapi({ description: 'The whole step list: healed locators in front of the recorded ones, which stay as fallbacks' }),
    healed: z.array(HealedStepSchema),
    createdAt: z.string().datetime(),
    decidedAt: z.string().datetime().nullable(),
  })
  .openapi('HealProposal');

const TestCaseParam = uuid().openapi({ param: { name: 'testCaseId', in: 'path' } });
const VersionParams = z.object({
  testCaseId: TestCaseParam,
  version: z.coerce.number().int().min(1).openapi({ param: { name: 'version', in: 'path' }, example: 3 }),
});

const tags = ['Test cases'];
const conflict = json(ErrorSchema, 'Already decided, or the steps changed since the proposal was made');

const routes = {
  list: createRoute({
    method: 'get', path: '/v1/test-cases/{testCaseId}/steps/proposals', tags, security: bearerSecurity,
    summary: 'Heal proposals of a test case, newest first',
    description: 'Under the `review` heal policy (see `/v1/project/settings`) a passing run that needed self-healing proposes its healed steps here.',
    request: { params: z.object({ testCaseId: TestCaseParam }) },
    responses: { 200: json(z.object({ proposals: z.array(HealProposalSchema) }), 'Proposals'), ...errorResponses },
  }),
  accept: createRoute({
    method: 'post', path: '/v1/test-cases/{testCaseId}/steps/{version}/accept', tags, security: bearerSecurity,
    summary: 'Accept a heal proposal: its steps become the given steps version',
    request: { params: VersionParams },
    responses: { 200: json(HealProposalSchema, 'Accepted'), 409: conflict, ...errorResponses },
  }),
  reject: createRoute({
    method: 'post', path: '/v1/test-cases/{testCaseId}/steps/{version}/reject', tags, security: bearerSecurity,
    summary: 'Reject a heal proposal: the steps stay as they are',
    request: { params: VersionParams },
    responses: { 200: json(HealProposalSchema, 'Rejected'), 409: conflict, ...errorResponses },
  }),
};

function view(p: HealProposal) {
  return {
    ...p,
    healed: p.healed.map((h) => ({ ...h, via: h.via === 'llm' ? ('llm' as const) : ('fallback' as const) })),
    createdAt: p.createdAt.toISOString(),
    decidedAt: p.decidedAt?.toISOString() ?? null,
  };
}

async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof HealProposalError) throw new ApiError(err.kind === 'not_found' ? 404 : 409, err.message);
    throw err;
  }
}

export function registerTestCaseSteps(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const { testCaseId } = c.req.valid('param');
    const proposals = await mapped(listHealProposals(c.get('deps').db, c.get('caller').projectId, testCaseId.toLowerCase()));
    return c.json({ proposals: proposals.map(view) }, 200);
  });
  app.openapi(routes.accept, async (c) => {
    const { testCaseId, version } = c.req.valid('param');
    return c.json(view(await mapped(acceptHealProposal(c.get('deps').db, c.get('caller').projectId, testCaseId.toLowerCase(), version))), 200);
  });
  app.openapi(routes.reject, async (c) => {
    const { testCaseId, version } = c.req.valid('param');
    return c.json(view(await mapped(rejectHealProposal(c.get('deps').db, c.get('caller').projectId, testCaseId.toLowerCase(), version))), 200);
  });
}
