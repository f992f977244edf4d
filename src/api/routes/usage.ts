import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { BudgetSchema, UsageDaysSchema, UsageQuery } from '../../schemas/usage.js';
import { getLlmBudget, setLlmBudget, usageByDay } from '../../services/llm-usage.js';
import { tokenActor } from '../../services/audit-log.js';

const tags = ['Usage'];
const routes = {
  usage: createRoute({
    method: 'get',
    path: '/v1/usage',
    tags,
    security: bearerSecurity,
    summary: "The project's LLM usage per day",
    description:
      'Extension to the spec. Every LLM call (burn-ins, heals in runs, chat turns, change reviews) counted per UTC day: calls, prompt, ' +
      'completion and cached tokens as the server reported them (`estimated` when a server sent none), and US dollars when ' +
      'PROCTOR_LLM_PRICES prices every model used. `from` and `to` are UTC days, both included (at most 366 days; default the last 30). ' +
      'Also the daily budget and what is spent of it today.',
    request: { query: UsageQuery },
    responses: { 200: json(UsageDaysSchema, 'Usage per day'), ...errorResponses },
  }),
  getBudget: createRoute({
    method: 'get',
    path: '/v1/usage/budget',
    tags,
    security: bearerSecurity,
    summary: "The project's daily LLM budget",
    responses: { 200: json(BudgetSchema, 'The budget'), ...errorResponses },
  }),
  putBudget: createRoute({
    method: 'put',
    path: '/v1/usage/budget',
    tags,
    security: bearerSecurity,
    summary: "Set the project's daily LLM budget",
    description:
      'Once the tokens (prompt + completion) or dollars spent today (UTC) reach a limit, new LLM work is refused with 429: creating a test ' +
      "(its burn-in), a chat message, a change review. Work already running fails at its next LLM call with the same message, and a run's " +
      'heals fail; replays, which need no model, still run. null removes a limit.',
    request: { body: jsonBody(BudgetSchema) },
    responses: { 200: json(BudgetSchema, 'The budget after the change'), ...errorResponses },
  }),
};

export function registerUsage(app: OpenApiApp): void {
  app.openapi(routes.usage, async (c) =>
    c.json(await usageByDay(c.get('services'), c.get('caller').projectId, c.req.valid('query')), 200),
  );
  app.openapi(routes.getBudget, async (c) =>
    c.json(await getLlmBudget(c.get('services'), c.get('caller').projectId), 200),
  );
  app.openapi(routes.putBudget, async (c) =>
    c.json(
      await setLlmBudget(
        c.get('services'),
        c.get('caller').projectId,
        c.req.valid('json'),
        tokenActor(c.get('caller').tokenId),
      ),
      200,
    ),
  );
}
