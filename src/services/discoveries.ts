// Discoveries as business operations (issue 34): ask for one on an application's environment (the row first, then
// its workflow, which marks the row FAILED with the reason when it cannot start), read one, list an application's,
// cancel one. The map and the diff are in discovery-map.ts.
import { findEnvironment } from '../db/queries/environments.js';
import { findTestCaseRecords } from '../db/queries/test-cases.js';
import {
  finishDiscoveryRow,
  findDiscovery,
  insertDiscovery,
  listDiscoveries as listDiscoveryRows,
  type DiscoveryRow,
} from '../db/queries/discoveries.js';
import { defaultDiscoveryBudget, type DiscoveryBudget } from '../domain/discovery.js';
import { endedDiscoveryStatuses, type DiscoveryStatus, type DiscoveryStopReason } from '../domain/discovery-run.js';
import { ConflictError, InvalidError, NotFoundError, UnavailableError } from '../domain/errors.js';
import { newId, newShortId } from '../ids.js';
import { cancelDiscovery as cancelDiscoveryWorkflow, startDiscovery } from '../temporal/lifecycle.js';
import { workflowIds } from '../../workflows/shared.js';
import { requireApplication } from './applications.js';
import type { ServiceContext } from './context.js';

export interface DiscoveryView {
  shortId: string;
  applicationShortId: string;
  environmentShortId: string | null;
  startUrl: string;
  status: DiscoveryStatus;
  stopReason: DiscoveryStopReason | null;
  budget: DiscoveryBudget;
  intent: string | null;
  resumeFromTestCaseId: string | null;
  pages: number;
  actions: number;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface CreateDiscoveryInput {
  environmentShortId?: string;
  budget?: Partial<DiscoveryBudget>;
  intent?: string;
  resumeFromTestCaseId?: string;
}

export function discoveryView(row: DiscoveryRow): DiscoveryView {
  return {
    shortId: row.short_id,
    applicationShortId: row.application_short_id,
    environmentShortId: row.environment_short_id,
    startUrl: row.start_url,
    status: row.status,
    stopReason: row.stop_reason,
    budget: row.budget,
    intent: row.intent,
    resumeFromTestCaseId: row.resume_from_test_case_id,
    pages: row.pages,
    actions: row.actions,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

/** The project's discovery by short id, or NotFoundError. */
export async function requireDiscovery({ db }: ServiceContext, projectId: string, shortId: string) {
  const row = await findDiscovery(db, projectId, shortId);
  if (!row) throw new NotFoundError('Discovery');
  return row;
}

/** Where the discovery runs: the named environment of the application, else its default; it must have a URL. */
async function environmentOf(
  { db }: ServiceContext,
  projectId: string,
  application: { id: string; shortId: string; name: string; defaultEnvironmentShortId: string | null },
  environmentShortId: string | undefined,
) {
  const shortId = environmentShortId ?? application.defaultEnvironmentShortId;
  if (!shortId)
    throw new InvalidError(
      `environmentShortId: application ${application.name} has no environment: create one (POST /v1/applications/${application.shortId}/environments)`,
    );
  const env = await findEnvironment(db, projectId, shortId);
  if (!env || env.application_id !== application.id)
    throw new NotFoundError(`Environment ${shortId} of application ${application.shortId}`);
  if (!env.url) throw new InvalidError(`environmentShortId: environment ${env.name} has no URL to explore`);
  return { id: env.id, url: env.url };
}

async function checkResumeFrom({ db }: ServiceContext, projectId: string, applicationId: string, id: string) {
  const [test] = await findTestCaseRecords(db, projectId, [id.toLowerCase()]);
  if (!test) throw new NotFoundError(`Test case ${id}`);
  if (test.applicationId !== applicationId)
    throw new InvalidError(
      `resumeFromTestCaseId: "${test.name}" belongs to another application; browser state does not carry over between applications`,
    );
  if (test.generationStatus !== 'COMPLETED')
    throw new InvalidError(
      `resumeFromTestCaseId: "${test.name}" has no recorded steps to replay (its burn-in has not completed)`,
    );
  return test.id;
}

/** What starts a written discovery's workflow: its input and the summary the Temporal UI shows. */
export interface WrittenDiscovery {
  input: Parameters<typeof startDiscovery>[1];
  summary: string;
  /** The application, as a search attribute the Temporal UI filters by. */
  application: string;
}

/**
 * Checks the request and writes the discovery (QUEUED) without starting it: the API starts it at once
 * (createDiscovery), a schedule's tick runs it as its child. `id`: a tick's own, so a retried write finds its row.
 */
export async function writeDiscovery(
  services: ServiceContext,
  projectId: string,
  applicationShortId: string,
  input: CreateDiscoveryInput,
  id: string = newId(),
): Promise<WrittenDiscovery> {
  const application = await requireApplication(services, projectId, applicationShortId);
  if (application.kind !== 'web')
    throw new InvalidError(
      `application ${application.name} is an ${application.kind} application: discovery explores web applications`,
    );
  const env = await environmentOf(services, projectId, application, input.environmentShortId);
  const resumeFrom = input.resumeFromTestCaseId
    ? await checkResumeFrom(services, projectId, application.id, input.resumeFromTestCaseId)
    : null;
  const budget: DiscoveryBudget = { ...defaultDiscoveryBudget, ...input.budget };
  const shortId = newShortId('discovery');
  await insertDiscovery(services.db, {
    id,
    shortId,
    projectId,
    applicationId: application.id,
    environmentId: env.id,
    startUrl: env.url,
    budget,
    intent: input.intent ? input.intent : null,
    resumeFromTestCaseId: resumeFrom,
    workflowId: workflowIds.discovery(shortId),
  });
  return {
    input: {
      discoveryId: id,
      discoveryShortId: shortId,
      projectId,
      budget,
      ...(input.intent && { intent: input.intent }),
    },
    summary: `Discovery ${shortId} of ${application.name} (${env.url})`,
    application: application.shortId,
  };
}

/** Writes the discovery, then starts its workflow; a start that fails marks it FAILED and answers 503. */
export async function createDiscovery(
  services: ServiceContext<'temporal'>,
  projectId: string,
  applicationShortId: string,
  input: CreateDiscoveryInput,
): Promise<DiscoveryView> {
  const written = await writeDiscovery(services, projectId, applicationShortId, input);
  const { discoveryId: id, discoveryShortId: shortId } = written.input;
  try {
    await startDiscovery(services.temporal, written.input, written.summary, { application: written.application });
  } catch (err) {
    const error = `could not start the discovery: ${err instanceof Error ? err.message : String(err)}`;
    await finishDiscoveryRow(services.db, id, { status: 'FAILED', stopReason: null, error });
    throw new UnavailableError(`${error} (discovery ${shortId} is marked FAILED)`);
  }
  return getDiscovery(services, projectId, shortId);
}

export async function getDiscovery(
  services: ServiceContext,
  projectId: string,
  shortId: string,
): Promise<DiscoveryView> {
  return discoveryView(await requireDiscovery(services, projectId, shortId));
}

export async function listApplicationDiscoveries(
  services: ServiceContext,
  projectId: string,
  applicationShortId: string,
): Promise<DiscoveryView[]> {
  const application = await requireApplication(services, projectId, applicationShortId);
  const rows = await listDiscoveryRows(services.db, projectId, application.id);
  return rows.map(discoveryView);
}

/**
 * Asks the discovery's workflow to stop; it ends CANCELLED once the visits in flight have closed their browsers.
 * An ended discovery is a 409. A discovery whose workflow is gone (terminated) is marked CANCELLED here.
 */
export async function cancelDiscovery(
  services: ServiceContext<'temporal'>,
  projectId: string,
  shortId: string,
): Promise<DiscoveryView> {
  const row = await requireDiscovery(services, projectId, shortId);
  if (endedDiscoveryStatuses.includes(row.status))
    throw new ConflictError(`discovery ${shortId} has ended (${row.status}): there is nothing to cancel`);
  const running = await cancelDiscoveryWorkflow(services.temporal, shortId);
  if (!running) await finishDiscoveryRow(services.db, row.id, { status: 'CANCELLED', stopReason: null, error: null });
  return getDiscovery(services, projectId, shortId);
}
