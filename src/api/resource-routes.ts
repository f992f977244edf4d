import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ApiServices, AppEnv, Caller } from './context.js';
import type { ServiceContext } from '../services/context.js';
import type { JsonText } from '../db/queries/project-lists.js';
import type { Logger } from '../logger.js';
import { Deleted } from '../schemas/common.js';
import {
  bearerSecurity,
  ErrorSchema,
  errorResponses,
  json,
  jsonBody,
  sendJsonText,
  type OpenApiApp,
} from './openapi.js';

/**
 * The REST shape of a resource a project keeps: list and create on the collection, get, update and delete on an
 * item. The routes are built here so that every resource words, secures and answers them alike; a resource names
 * only what is its own (schemas, summaries, the odd extra status).
 */
export interface Resource<Item extends z.ZodType, Params extends z.ZodObject, Parent extends z.ZodObject | undefined> {
  /** The item's path, e.g. `/v1/scenarios/{scenarioShortId}`; the collection is this path without its last segment. */
  path: string;
  tags: string[];
  /** The item with its article and the plural, for the standard words: `['a scenario', 'scenarios']`. */
  noun: readonly [one: string, many: string];
  schema: Item;
  /** Path parameters of an item. */
  params: Params;
  /** Path parameters of the collection, when it sits under another resource. */
  parentParams?: Parent;
}

/** What an operation says beyond the standard words, and the statuses it may add. */
export interface OperationDoc {
  summary?: string;
  description?: string;
  /** Adds a 409 with this description. */
  conflict?: string;
  /** Adds a 503 with this description. */
  unavailable?: string;
  /** The success answer's description, where the standard words ('Created', 'Updated', 'Deleted'...) do not fit. */
  answer?: string;
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const withoutArticle = (noun: string) => noun.replace(/^(a|an) /, '');

const collectionPath = (itemPath: string) => itemPath.slice(0, itemPath.lastIndexOf('/'));

const collectionRequest = <Parent extends z.ZodObject | undefined>(parent: Parent | undefined) =>
  (parent ? { params: parent } : {}) as [Parent] extends [undefined]
    ? Record<never, never>
    : { params: NonNullable<Parent> };

type ErrorJson = ReturnType<typeof json<typeof ErrorSchema>>;

function operation(doc: OperationDoc, summary: string) {
  const extra: { 409?: ErrorJson; 503?: ErrorJson } = {};
  if (doc.conflict) extra[409] = json(ErrorSchema, doc.conflict);
  if (doc.unavailable) extra[503] = json(ErrorSchema, doc.unavailable);
  return {
    summary: doc.summary ?? summary,
    ...(doc.description !== undefined && { description: doc.description }),
    extra,
  };
}

/** One route builder per standard operation, for a resource that has only some of them. */
export function resource<
  Item extends z.ZodType,
  Params extends z.ZodObject,
  Parent extends z.ZodObject | undefined = undefined,
>(spec: Resource<Item, Params, Parent>) {
  const [one, many] = spec.noun;
  const base = { tags: spec.tags, security: bearerSecurity };
  const collection = { ...base, path: collectionPath(spec.path) };
  const item = { ...base, path: spec.path };
  return {
    list<const Key extends string>(key: Key, doc: OperationDoc & { returns?: string } = {}) {
      const { extra, ...words } = operation(doc, `List ${many}`);
      const listed = z.object({ [key]: z.array(spec.schema) } as Record<Key, z.ZodArray<Item>>);
      return createRoute({
        method: 'get',
        ...collection,
        ...words,
        request: collectionRequest(spec.parentParams),
        responses: {
          200: json(listed, doc.answer ?? doc.returns ?? `${capitalize(many)} of the project`),
          ...extra,
          ...errorResponses,
        },
      });
    },
    /** `answers`: what the 201 carries when it is not the item (a token shown once beside its view). */
    create<Body extends z.ZodType, Created extends z.ZodType = Item>(
      body: Body,
      doc: OperationDoc & { summary: string; answers?: Created },
    ) {
      const { extra, ...words } = operation(doc, doc.summary);
      const created = (doc.answers ?? spec.schema) as Created;
      return createRoute({
        method: 'post',
        ...collection,
        ...words,
        request: { ...collectionRequest(spec.parentParams), body: jsonBody(body) },
        responses: { 201: json(created, doc.answer ?? 'Created'), ...extra, ...errorResponses },
      });
    },
    get(doc: OperationDoc = {}) {
      const { extra, ...words } = operation(doc, `Get ${one}`);
      return createRoute({
        method: 'get',
        ...item,
        ...words,
        request: { params: spec.params },
        responses: { 200: json(spec.schema, doc.answer ?? `The ${withoutArticle(one)}`), ...extra, ...errorResponses },
      });
    },
    update<Body extends z.ZodType>(body: Body, doc: OperationDoc = {}) {
      const { extra, ...words } = operation(doc, `Update ${one}`);
      return createRoute({
        method: 'patch',
        ...item,
        ...words,
        request: { params: spec.params, body: jsonBody(body) },
        responses: { 200: json(spec.schema, doc.answer ?? 'Updated'), ...extra, ...errorResponses },
      });
    },
    remove(doc: OperationDoc = {}) {
      const { extra, ...words } = operation(doc, `Delete ${one}`);
      return createRoute({
        method: 'delete',
        ...item,
        ...words,
        request: { params: spec.params },
        responses: { 200: json(Deleted, doc.answer ?? 'Deleted'), ...extra, ...errorResponses },
      });
    },
  };
}

/** The five standard routes of a resource: list (under `listKey`), create (201), get, update and delete. */
export function resourceRoutes<
  Item extends z.ZodType,
  Params extends z.ZodObject,
  const Key extends string,
  Create extends z.ZodType,
  Update extends z.ZodType,
  Parent extends z.ZodObject | undefined = undefined,
>(
  spec: Resource<Item, Params, Parent> & {
    listKey: Key;
    list?: OperationDoc & { returns?: string };
    create: OperationDoc & { summary: string; body: Create };
    get?: OperationDoc;
    update: OperationDoc & { body: Update };
    remove?: OperationDoc;
  },
) {
  const routes = resource(spec);
  return {
    list: routes.list(spec.listKey, spec.list),
    create: routes.create(spec.create.body, spec.create),
    get: routes.get(spec.get),
    update: routes.update(spec.update.body, spec.update),
    remove: routes.remove(spec.remove),
  };
}

type Route = ReturnType<typeof createRoute>;
type JsonSchemaOf<R> = R extends { content: { 'application/json': { schema: infer S extends z.ZodType } } }
  ? z.output<S>
  : never;
type Answer<R extends Route> = R['responses'] extends { 201: infer C }
  ? JsonSchemaOf<C>
  : R['responses'] extends { 200: infer C }
    ? JsonSchemaOf<C>
    : never;
type ParamOf<R extends Route> = R['request'] extends { params: infer P extends z.ZodType } ? z.output<P> : undefined;
type BodyOf<R extends Route> = R['request'] extends { body: infer B } ? JsonSchemaOf<B> : undefined;

/** One request as an operation sees it: the services' context, who calls, and the validated path parameters and body. */
export interface ResourceCall<Param, Body> {
  services: ApiServices;
  caller: Caller;
  projectId: string;
  logger: Logger;
  param: Param;
  body: Body;
}

/** Each operation answers its success body (or that body serialised earlier); errors are thrown as everywhere. */
export type ResourceOperations<Routes extends Record<string, Route>> = {
  [Op in keyof Routes]?: (
    call: ResourceCall<ParamOf<Routes[Op]>, BodyOf<Routes[Op]>>,
  ) => Promise<Answer<Routes[Op]> | JsonText<Answer<Routes[Op]>>>;
};

/**
 * Registers the given operations of a resource, in the order given (which is the order of the document), each
 * answering 201 where its route declares a 201 and 200 otherwise.
 */
export function serveResource<Routes extends Record<string, Route>>(
  app: OpenApiApp,
  routes: Routes,
  operations: ResourceOperations<Routes>,
): void {
  for (const [op, run] of Object.entries(operations) as [
    keyof Routes & string,
    (call: ResourceCall<unknown, unknown>) => Promise<unknown>,
  ][]) {
    const route = routes[op] as Route;
    const status = 201 in route.responses ? 201 : 200;
    const handler = async (c: Context<AppEnv>) => {
      const caller = c.get('caller');
      const request = c.req as unknown as { valid(target: 'param' | 'json'): unknown };
      const answer = await run({
        services: c.get('services'),
        caller,
        projectId: caller.projectId,
        logger: c.get('logger'),
        param: route.request?.params ? request.valid('param') : undefined,
        body: route.request?.body ? request.valid('json') : undefined,
      });
      return typeof answer === 'string'
        ? sendJsonText(c, answer as JsonText<unknown>)
        : c.json(answer as object, status);
    };
    app.openapi(route, handler as never);
  }
}

/**
 * The operations of a resource whose services all take `(services, projectId, shortId?, body?)`: the list answered under
 * `listKey`, get and update shown without the database id, delete answered `{ deleted: true }`.
 */
export function projectCrud<const Key extends string, const Id extends string, View, Create, Update>(
  listKey: Key,
  idParam: Id,
  crud: {
    list(services: ServiceContext, projectId: string): Promise<View[]>;
    create(services: ServiceContext, projectId: string, body: Create): Promise<View>;
    get(services: ServiceContext, projectId: string, shortId: string): Promise<View & { id: string }>;
    update(services: ServiceContext, projectId: string, shortId: string, body: Update): Promise<View & { id: string }>;
    remove(services: ServiceContext, projectId: string, shortId: string): Promise<void>;
  },
) {
  type Call<Param, Body> = ResourceCall<Param, Body>;
  type ById = Record<Id, string>;
  return {
    list: async ({ services, projectId }: Call<unknown, unknown>) =>
      ({ [listKey]: await crud.list(services, projectId) }) as Record<Key, View[]>,
    create: ({ services, projectId, body }: Call<unknown, Create>) => crud.create(services, projectId, body),
    get: async ({ services, projectId, param }: Call<ById, unknown>) =>
      withoutId(await crud.get(services, projectId, param[idParam])),
    update: async ({ services, projectId, param, body }: Call<ById, Update>) =>
      withoutId(await crud.update(services, projectId, param[idParam], body)),
    remove: async ({ services, projectId, param }: Call<ById, unknown>) =>
      deleted(await crud.remove(services, projectId, param[idParam])),
  };
}

/** A record without its database id, as the API shows it. */
export const withoutId = <T extends { id: string }>({ id: _id, ...view }: T): Omit<T, 'id'> => view;

/** What every delete answers, once the deletion is done. */
export const deleted = (_done?: unknown) => ({ deleted: true as const });
