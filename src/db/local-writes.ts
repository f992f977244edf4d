import {
  AliasNode,
  DeleteQueryNode,
  InsertQueryNode,
  TableNode,
  UpdateQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

export type LocalWriteHandler = (table: string) => void;

/**
 * Tells `handlers` which table an insert, update or delete made through the handle (or one of its transactions)
 * wrote, once the statement has returned. What a cache derived from that table is then stale in this process at
 * once, without waiting for the database's notification. Raw SQL (`sql\`…\``) is not seen: its notification is.
 */
export class LocalWritePlugin implements KyselyPlugin {
  readonly handlers = new Set<LocalWriteHandler>();
  readonly #pending = new WeakMap<QueryId, string[]>();

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (this.handlers.size > 0) {
      const tables = writtenTables(node);
      if (tables.length > 0) this.#pending.set(queryId, tables);
    }
    return node;
  }

  async transformResult({ queryId, result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const tables = this.#pending.get(queryId);
    if (tables) {
      this.#pending.delete(queryId);
      for (const table of tables) for (const handler of this.handlers) handler(table);
    }
    return result;
  }
}

function writtenTables(node: RootOperationNode): string[] {
  if (InsertQueryNode.is(node)) return names([node.into]);
  if (UpdateQueryNode.is(node)) return names([node.table]);
  if (DeleteQueryNode.is(node)) return names(node.from.froms);
  return [];
}

function names(nodes: ReadonlyArray<OperationNode | undefined>): string[] {
  const found: string[] = [];
  for (const node of nodes) {
    const table = node && AliasNode.is(node) ? node.node : node;
    if (table && TableNode.is(table)) found.push(table.table.identifier.name);
  }
  return found;
}
