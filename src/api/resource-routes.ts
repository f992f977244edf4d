import { z } from '@hono/zod-openapi';
import type { ServiceContext } from '../services/context.js';
import { Deleted } from '../schemas/common.js';
import { operation, type Operation, type OperationDoc, type ResourceCall } from './operation-routes.js';

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

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const withoutArticle = (noun: string) => noun.replace(/^(a|an) /, '');

const collectionPath = (itemPath: string) => itemPath.slice(0, itemPath.lastIndexOf('/'));

/** One route builder per standard operation, for a resource that has only some of them. */
export function resource<
  Item extends z.ZodType,
  Params extends z.ZodObject,
  Parent extends z.ZodObject | undefined = undefined,
>(spec: Resource<Item, Params, Parent>) {
  const [one, many] = spec.noun;
  const collection = { tags: spec.tags, path: collectionPath(spec.path), params: spec.parentParams as Parent };
  const item = { tags: spec.tags, path: spec.path, params: spec.params };
  return {
    list<const Key extends string>(key: Key, doc: OperationDoc & { returns?: string } = {}) {
      const listed = z.object({ [key]: z.array(spec.schema) } as Record<Key, z.ZodArray<Item>>);
      return standard(doc, {
        method: 'get',
        ...collection,
        summary: `List ${many}`,
        answers: listed,
        answer: doc.returns ?? `${capitalize(many)} of the project`,
      });
    },
    /** `answers`: what the 201 carries when it is not the item (a token shown once beside its view). */
    create<Body extends z.ZodType, Created extends z.ZodType = Item>(
      body: Body,
      doc: OperationDoc & { summary: string; answers?: Created },
    ) {
      const answers = (doc.answers ?? spec.schema) as Created;
      return standard(doc, {
        method: 'post',
        ...collection,
        body,
        status: 201,
        summary: doc.summary,
        answers,
        answer: 'Created',
      });
    },
    get(doc: OperationDoc = {}) {
      const answer = `The ${withoutArticle(one)}`;
      return standard(doc, { method: 'get', ...item, summary: `Get ${one}`, answers: spec.schema, answer });
    },
    update<Body extends z.ZodType>(body: Body, doc: OperationDoc = {}) {
      const summary = `Update ${one}`;
      return standard(doc, { method: 'patch', ...item, body, summary, answers: spec.schema, answer: 'Updated' });
    },
    remove(doc: OperationDoc = {}) {
      const summary = `Delete ${one}`;
      return standard(doc, { method: 'delete', ...item, summary, answers: Deleted, answer: 'Deleted' });
    },
  };
}

/**
 * A standard operation as a resource words it: its own summary and answer where it gives them, the standard words
 * otherwise; what else it says (a description, the odd 409 or 503) is passed on as given.
 */
function standard<
  Answers extends z.ZodType,
  Params extends z.ZodObject | undefined,
  Body extends z.ZodType | undefined = undefined,
  Status extends 200 | 201 = 200,
>(doc: OperationDoc, route: Operation<Answers, Params, undefined, undefined, Body, false, Status>) {
  return operation<Answers, Params, undefined, undefined, Body, false, Status>({
    ...doc,
    ...route,
    summary: doc.summary ?? route.summary,
    answer: doc.answer ?? route.answer,
  });
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
