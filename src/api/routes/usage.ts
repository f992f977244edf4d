import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { BudgetSchema, UsageDaysSchema, UsageQuery } from '../../schemas/usage.js';
import { getLlmBudget, setLlmBudget, usageByDay } from '../../services/llm-usage.js';
import { tokenActor } from '../../services/audit-log.js';

const tags = ['Usage'];
const budget = { tags, path: '/v1/usage/budget', answers: BudgetSchema };
const routes = {
  usage: operation({
    method: 'get',
    path: '/v1/usage',
    tags,
    summary: "The project's LLM usage per day",
    description:
      'Extension to the spec. Every LLM call (burn-ins, heals in runs, chat turns, change reviews) counted per UTC day: calls, prompt, ' +
      'completion and cached tokens as the server reported them (`estimated` when a server sent none), and US dollars when ' +
      'PROCTOR_LLM_PRICES prices every model used. `from` and `to` are UTC days, both included (at most 366 days; default the last 30). ' +
      'Also the daily budget and what is spent of it today.',
    query: UsageQuery,
    answers: UsageDaysSchema,
    answer: 'Usage per day',
  }),
  getBudget: operation({ ...budget, method: 'get', summary: "The project's daily LLM budget", answer: 'The budget' }),
  putBudget: operation({
    ...budget,
    method: 'put',
    summary: "Set the project's daily LLM budget",
    description:
      'Once the tokens (prompt + completion) or dollars spent today (UTC) reach a limit, new LLM work is refused with 429: creating a test ' +
      "(its burn-in), a chat message, a change review. Work already running fails at its next LLM call with the same message, and a run's " +
      'heals fail; replays, which need no model, still run. null removes a limit.',
    body: BudgetSchema,
    answer: 'The budget after the change',
  }),
};

export function registerUsage(app: OpenApiApp): void {
  serveResource(app, routes, {
    usage: ({ services, projectId, query }) => usageByDay(services, projectId, query),
    getBudget: ({ services, projectId }) => getLlmBudget(services, projectId),
    putBudget: ({ services, projectId, caller, body }) =>
      setLlmBudget(services, projectId, body, tokenActor(caller.tokenId)),
  });
}
