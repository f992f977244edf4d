import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { migrate } from '../db/migrate.js';
import {
  createOrganization,
  createProject,
  listOrganizations,
  listProjects,
  setOrganizationSuspended,
} from '../db/queries/admin.js';
import { openDatabase } from '../runtime.js';
import { rotateMasterKey } from './rotate-master-key.js';
import { createProjectToken, revokeProjectToken } from '../services/api-tokens.js';

const usage = `proctor admin <command> [options]       (uses DATABASE_URL, else the dev PGlite in PROCTOR_DATA_DIR)

  create-org --name NAME                     prints the organization id
  create-project --org ORG_ID --name NAME    prints the project id
  create-token --project PROJECT_ID [--name NAME]         prints a new API token (prt_…), shown once
  create-badge-token --project PROJECT_ID [--name NAME]   prints a new badge token (prb_…), shown once
  revoke-token --token-id TOKEN_ID
  suspend-org --org ORG_ID                   API tokens of its projects get 403 until unsuspended
  unsuspend-org --org ORG_ID
  list-orgs
  list-projects
  rotate-master-key                          re-wraps the secrets' data keys under PROCTOR_NEW_MASTER_KEY (or a new key)
`;

export async function runAdmin(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') {
    process.stdout.write(usage);
    return command ? 0 : 1;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      org: { type: 'string' },
      project: { type: 'string' },
      'token-id': { type: 'string' },
    },
    strict: true,
  });
  const need = (key: keyof typeof values): string => {
    const value = values[key];
    if (!value) throw new UsageError(`--${key} is required for ${command}`);
    return value;
  };

  const db = openDatabase(loadConfig('admin'));
  const out = (line: string) => process.stdout.write(line + '\n');
  try {
    await migrate(db);
    switch (command) {
      case 'create-org':
        out((await createOrganization(db, need('name'))).id);
        return 0;
      case 'create-project':
        out((await createProject(db, need('org'), need('name'))).id);
        return 0;
      case 'create-token':
        out(
          (
            await createProjectToken(
              { db },
              { projectId: need('project'), kind: 'api', name: values.name ?? 'api token' },
            )
          ).token,
        );
        return 0;
      case 'create-badge-token':
        out(
          (
            await createProjectToken(
              { db },
              {
                projectId: need('project'),
                kind: 'badge',
                name: values.name ?? 'badge token',
              },
            )
          ).token,
        );
        return 0;
      case 'revoke-token':
        return report(await revokeProjectToken({ db }, need('token-id')), 'token revoked', 'no such active token');
      case 'suspend-org':
        return report(
          await setOrganizationSuspended(db, need('org'), true),
          'organization suspended',
          'no such organization',
        );
      case 'unsuspend-org':
        return report(
          await setOrganizationSuspended(db, need('org'), false),
          'organization active',
          'no such organization',
        );
      case 'list-orgs':
        for (const o of await listOrganizations(db))
          out(`${o.id}\t${o.suspended_at ? 'suspended' : 'active'}\t${o.name}`);
        return 0;
      case 'rotate-master-key':
        await rotateMasterKey(db, out);
        return 0;
      case 'list-projects':
        for (const p of await listProjects(db))
          out(
            `${p.id}\t${p.name}\torg ${p.organization_id} (${p.organization_name}${p.suspended_at ? ', suspended' : ''})`,
          );
        return 0;
      default:
        throw new UsageError(`unknown admin command: ${command}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${usage}`);
      return 2;
    }
    throw err;
  } finally {
    await db.destroy();
  }
}

class UsageError extends Error {}

function report(ok: boolean, success: string, failure: string): number {
  (ok ? process.stdout : process.stderr).write(`${ok ? success : failure}\n`);
  return ok ? 0 : 1;
}
