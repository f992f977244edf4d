import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ApiServices, AppDeps, AppEnv, Caller } from './context.js';
import type { JsonText } from '../db/queries/project-lists.js';
import type { Logger } from '../logger.js';
import { bearerSecurity, ErrorSchema, errorResponses, json, sendJsonText, type OpenApiApp } from './openapi.js';

/** What an operation says beyond the standard words, and the statuses it may add. */
export interface OperationDoc {
  summary?: string;
  description?: string;
  /** Adds a 409 with this description. */
  conflict?: string;
  /** Adds a 429 with this description. */
  overBudget?: string;
  /** Adds a 503 with this description. */
  unavailable?: string;
  /** The success answer's description, where the standard words ('Created', 'Updated', 'Deleted'...) do not fit. */
  answer?: string;
}

type JsonContent<Schema> = { description: string; content: { 'application/json': { schema: Schema } } };

type Success = 200 | 201 | 202;

/** One authenticated JSON operation: where it is, what it takes, and what it answers on success (`answers`, `answer`). */
export interface Operation<Answers, Params, Query, Headers, Body, Optional, Status> extends OperationDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  tags: string[];
  summary: string;
  answers: Answers;
  answer: string;
  /** 200 unless given. */
  status?: Status;
  params?: Params;
  query?: Query;
  headers?: Headers;
  /** A JSON body, required unless `optionalBody`. */
  body?: Body;
  optionalBody?: Optional;
}

type Present<Key extends string, Value> = [Value] extends [undefined] ? Record<never, never> : Record<Key, Value>;
type OperationRequest<Params, Query, Headers, Body, Optional> = Present<'params', Params> &
  Present<'query', Query> &
  Present<'headers', Headers> &
  Present<
    'body',
    [Body] extends [undefined]
      ? undefined
      : { required: Optional extends true ? false : true; content: { 'application/json': { schema: Body } } }
  >;

/** The route of an operation, secured and answered as every /v1 route is. */
export function operation<
  Answers extends z.ZodType,
  Params extends z.ZodObject | undefined = undefined,
  Query extends z.ZodObject | undefined = undefined,
  Headers extends z.ZodObject | undefined = undefined,
  Body extends z.ZodType | undefined = undefined,
  Optional extends boolean = false,
  Status extends Success = 200,
>(spec: Operation<Answers, Params, Query, Headers, Body, Optional, Status>) {
  const { params, query, headers, body } = spec;
  const request = {
    ...(params && { params }),
    ...(query && { query }),
    ...(headers && { headers }),
    ...(body && { body: { required: !spec.optionalBody, content: { 'application/json': { schema: body } } } }),
  } as OperationRequest<Params, Query, Headers, Body, Optional>;
  const success = { [spec.status ?? 200]: json(spec.answers, spec.answer) } as Record<Status, JsonContent<Answers>>;
  return createRoute({
    method: spec.method,
    path: spec.path,
    tags: spec.tags,
    security: bearerSecurity,
    summary: spec.summary,
    ...(spec.description !== undefined && { description: spec.description }),
    request,
    responses: {
      ...success,
      ...(spec.conflict && { 409: json(ErrorSchema, spec.conflict) }),
      ...(spec.overBudget && { 429: json(ErrorSchema, spec.overBudget) }),
      ...(spec.unavailable && { 503: json(ErrorSchema, spec.unavailable) }),
      ...errorResponses,
    },
  });
}

type Route = ReturnType<typeof createRoute>;
type JsonSchemaOf<R> = R extends { content: { 'application/json': { schema: infer S extends z.ZodType } } }
  ? z.output<S>
  : never;
type Answer<R extends Route> = R['responses'] extends { 201: infer C }
  ? JsonSchemaOf<C>
  : R['responses'] extends { 202: infer C }
    ? JsonSchemaOf<C>
    : R['responses'] extends { 200: infer C }
      ? JsonSchemaOf<C>
      : never;
type Valid<R extends Route, Part extends string> = R['request'] extends { [P in Part]: infer S extends z.ZodType }
  ? z.output<S>
  : undefined;
type BodyOf<R extends Route> = R['request'] extends { body: infer B }
  ? B extends { required: false }
    ? JsonSchemaOf<B> | undefined
    : JsonSchemaOf<B>
  : undefined;

/**
 * One request as an operation sees it: the services' context, who calls, and the validated path parameters, body,
 * query and headers (each undefined where the route declares none).
 */
export interface ResourceCall<Param, Body, Query = undefined, Headers = undefined> {
  services: ApiServices;
  /** The API's own parts that are no service's (the tunnel edge, the inbox domain). */
  deps: AppDeps;
  caller: Caller;
  projectId: string;
  logger: Logger;
  param: Param;
  body: Body;
  query: Query;
  headers: Headers;
}

/** Each operation answers its success body (or that body serialised earlier); errors are thrown as everywhere. */
export type ResourceOperations<Routes extends Record<string, Route>> = {
  [Op in keyof Routes]?: (
    call: ResourceCall<
      Valid<Routes[Op], 'params'>,
      BodyOf<Routes[Op]>,
      Valid<Routes[Op], 'query'>,
      Valid<Routes[Op], 'headers'>
    >,
  ) => Promise<Answer<Routes[Op]> | JsonText<Answer<Routes[Op]>>>;
};

// An optional body left out: the validator lets a request without a Content-Type through (415 if it carried bytes)
// and hands on `{}`, never checked against the schema; the operation is told it is absent instead.
const hasBody = (c: Context<AppEnv>) => c.req.header('content-type') !== undefined;

// The one 2xx a route declares (operation() gives each exactly one); a string answer is sent with it too.
const successOf = (route: Route) =>
  Number(Object.keys(route.responses).find((status) => status.startsWith('2')) ?? 200) as Success;

/**
 * Registers the given operations, in the order given (which is the order of the document), each answering the
 * success status its route declares (201 for a create, 202 for work that goes on, 200 otherwise).
 */
export function serveResource<Routes extends Record<string, Route>>(
  app: OpenApiApp,
  routes: Routes,
  operations: ResourceOperations<Routes>,
): void {
  for (const [op, run] of Object.entries(operations) as [
    keyof Routes & string,
    (call: ResourceCall<unknown, unknown, unknown, unknown>) => Promise<unknown>,
  ][]) {
    const route = routes[op] as Route;
    const status = successOf(route);
    const handler = async (c: Context<AppEnv>) => {
      const caller = c.get('caller');
      const request = c.req as unknown as { valid(target: 'param' | 'json' | 'query' | 'header'): unknown };
      const answer = await run({
        services: c.get('services'),
        deps: c.get('deps'),
        caller,
        projectId: caller.projectId,
        logger: c.get('logger'),
        param: route.request?.params ? request.valid('param') : undefined,
        body: route.request?.body && (route.request.body.required || hasBody(c)) ? request.valid('json') : undefined,
        query: route.request?.query ? request.valid('query') : undefined,
        headers: route.request?.headers ? request.valid('header') : undefined,
      });
      return typeof answer === 'string'
        ? sendJsonText(c, answer as JsonText<unknown>, status)
        : c.json(answer as object, status);
    };
    app.openapi(route, handler as never);
  }
}
