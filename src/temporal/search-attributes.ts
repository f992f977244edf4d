// Registering Proctor's search attributes (workflows/search-attributes-contract.ts) on a Temporal namespace, and
// knowing whether they are there before a start sets them: a start that names an unregistered attribute is refused
// by the server, and an upsert of one fails the workflow task again and again. So a namespace without them (a
// cluster nobody ran `proctor migrate` against, the time-skipping test server) runs every workflow as before, just
// without attributes; the workflows upsert only what their start set (workflows/search-attributes.ts).
import { Connection, type Client } from '@temporalio/client';
// The SDK's own encoder of a key's type (exported for registering attributes), so no enum is spelled twice.
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { searchAttributes } from '../../workflows/search-attributes-contract.js';

const keys = Object.values(searchAttributes);

/** The attribute names the namespace knows, custom ones only (empty when the server cannot say). */
async function customAttributeNames(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
): Promise<Set<string>> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  return new Set(Object.keys(listed.customAttributes ?? {}));
}

/**
 * Adds the attributes the namespace lacks (`proctor migrate`); those already there are left alone, so running it
 * again is harmless. Returns the names it added.
 */
export async function registerSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
): Promise<string[]> {
  const present = await customAttributeNames(connection, namespace);
  const missing = keys.filter((k) => !present.has(k.name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((k) => [k.name, encodeSearchAttributeIndexedValueType(k.type)!])),
  });
  return missing.map((k) => k.name);
}

/**
 * `proctor migrate`: connects to the cluster at `address`, registers what is missing, closes, and says what it did.
 * Without an address (a database-only migration) it says that nothing was registered.
 */
export async function migrateSearchAttributes(address: string | undefined, namespace: string): Promise<string> {
  if (!address) return 'TEMPORAL_ADDRESS is not set: search attributes not registered (docs/operations.md)';
  const connection = await Connection.connect({ address, connectTimeout: 10_000 });
  try {
    const added = await registerSearchAttributes(connection, namespace);
    return added.length > 0
      ? `search attributes registered on ${namespace}: ${added.join(', ')}`
      : 'search attributes are up to date';
  } finally {
    await connection.close();
  }
}

/** The `temporal server start-dev` flags that register them (tests, `proctor dev`): `--search-attribute Name=Type`. */
export const devServerSearchAttributes = keys;

// Per client: a yes is kept, a no is asked again after a minute (someone may run `proctor migrate` meanwhile).
const known = new WeakMap<Client, { registered: boolean; at: number }>();
const recheckMs = 60_000;

/** Whether every Proctor attribute is registered on the client's namespace; a server that cannot say counts as no. */
export async function searchAttributesRegistered(client: Client): Promise<boolean> {
  const cached = known.get(client);
  if (cached && (cached.registered || Date.now() - cached.at < recheckMs)) return cached.registered;
  let registered = false;
  try {
    const present = await customAttributeNames(client.connection, client.options.namespace);
    registered = keys.every((k) => present.has(k.name));
  } catch {
    // The time-skipping test server has no operator service; a cluster may refuse it to this identity.
    registered = false;
  }
  known.set(client, { registered, at: Date.now() });
  return registered;
}
