import type { DB } from '../database.js';
import { openSecret } from '../secrets.js';
import { sql, type Expression } from 'kysely';
import type { Step } from '../../domain/steps.js';
import type { RecordingCheck } from '../../domain/recording-check.js';
import type { GenerationStatus } from '../schema.js';
import type { DeviceSettings } from '../../domain/device.js';

export interface ExecutionContext {
  testCase: {
    id: string;
    name: string;
    goal: string | null;
    expectedResult: string | null;
    steps: Step[] | null;
    stepsVersion: number;
    resumeFromId: string | null;
    waitForIds: string[];
    generationStatus: GenerationStatus;
  };
  application: { id: string; name: string; shortId: string };
  /** The application's default environment URL (project settings), when it has one. */
  environmentUrl: string | null;
  device: DeviceSettings | null;
  /** Config values by name, and which names are secret. */
  configs: Record<string, string>;
  secretNames: string[];
  /** Configs of type `totp` (their value is the seed): steps type the current code. */
  totpNames: string[];
  scenario: string | null;
}

interface PresetColumns {
  viewport_width: number | null;
  viewport_height: number | null;
  device_scale_factor: number | null;
  is_mobile: boolean | null;
  has_touch: boolean | null;
  user_agent: string | null;
  locale: string | null;
  timezone_id: string | null;
}

/** A device preset row (or its left-joined columns) as browser-context settings; null without a preset. */
export function toDeviceSettings(p: PresetColumns): DeviceSettings | null {
  if (p.viewport_width === null || p.viewport_height === null) return null;
  return {
    viewport: { width: p.viewport_width, height: p.viewport_height },
    deviceScaleFactor: p.device_scale_factor ?? 1,
    isMobile: p.is_mobile ?? false,
    hasTouch: p.has_touch ?? false,
    userAgent: p.user_agent ?? undefined,
    locale: p.locale ?? undefined,
    timezoneId: p.timezone_id ?? undefined,
  };
}

/** Everything burn-in or replay needs about one test case, in the caller's project. */
export async function loadExecutionContext(
  db: DB,
  projectId: string,
  testCaseId: string,
): Promise<ExecutionContext | undefined> {
  const row = await db
    .selectFrom('test_cases as t')
    .innerJoin('applications as a', 'a.id', 't.application_id')
    .leftJoin('environments as e', 'e.id', 'a.default_environment_id')
    .leftJoin('device_presets as d', 'd.id', 'a.default_device_preset_id')
    .leftJoin('scenarios as s', 's.id', 't.scenario_id')
    .select([
      't.id',
      't.name',
      't.goal',
      't.expected_result',
      't.steps',
      't.steps_version',
      't.resume_from_test_case_id',
      't.wait_for_test_case_ids',
      't.generation_status',
      't.config_ids',
      'a.id as application_id',
      'a.name as application_name',
      'a.short_id as application_short_id',
      'e.url as environment_url',
      'd.viewport_width',
      'd.viewport_height',
      'd.device_scale_factor',
      'd.is_mobile',
      'd.has_touch',
      'd.user_agent',
      'd.locale',
      'd.timezone_id',
      's.instructions as scenario_instructions',
    ])
    .where('t.project_id', '=', projectId)
    .where('t.id', '=', testCaseId)
    .executeTakeFirst();
  if (!row) return undefined;
  const configRows = row.config_ids.length
    ? await db
        .selectFrom('configs')
        .select(['name', 'value', 'is_secret', 'type'])
        .where('project_id', '=', projectId)
        .where('id', 'in', row.config_ids)
        .execute()
    : [];
  return {
    testCase: {
      id: row.id,
      name: row.name,
      goal: row.goal,
      expectedResult: row.expected_result,
      steps: (row.steps as Step[] | null) ?? null,
      stepsVersion: row.steps_version,
      resumeFromId: row.resume_from_test_case_id,
      waitForIds: row.wait_for_test_case_ids,
      generationStatus: row.generation_status,
    },
    application: { id: row.application_id, name: row.application_name, shortId: row.application_short_id },
    environmentUrl: row.environment_url,
    device: toDeviceSettings(row),
    configs: Object.fromEntries(
      await Promise.all(configRows.map(async (c) => [c.name, await openSecret(db, c.value)] as const)),
    ),
    secretNames: configRows.filter((c) => c.is_secret).map((c) => c.name),
    totpNames: configRows.filter((c) => c.type === 'totp').map((c) => c.name),
    scenario: row.scenario_instructions,
  };
}

export async function generationStatuses(
  db: DB,
  projectId: string,
  ids: string[],
): Promise<Record<string, GenerationStatus | 'MISSING'>> {
  if (ids.length === 0) return {};
  const rows = await db
    .selectFrom('test_cases')
    .select(['id', 'generation_status'])
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .execute();
  const found = new Map(rows.map((r) => [r.id, r.generation_status]));
  return Object.fromEntries(ids.map((id) => [id, found.get(id) ?? 'MISSING']));
}

export async function saveGenerationResult(
  db: DB,
  testCaseId: string,
  result: (
    { status: 'COMPLETED'; steps: Step[]; notCovered?: string[] } | { status: 'FAILED'; failureReason: string }
  ) & { recordingCheck?: RecordingCheck },
): Promise<void> {
  // The check names the steps version it replayed: the one these steps get (COMPLETED), the stored one (FAILED).
  const check = (version: Expression<number>) =>
    result.recordingCheck
      ? sql<string>`jsonb_set(${JSON.stringify(result.recordingCheck)}::jsonb, '{stepsVersion}', to_jsonb(${version}))`
      : undefined;
  await db
    .updateTable('test_cases')
    .set((eb) =>
      result.status === 'COMPLETED'
        ? {
            generation_status: 'COMPLETED',
            steps: JSON.stringify(result.steps),
            steps_version: eb('steps_version', '+', 1),
            failure_reason: null,
            // New steps, new reservations: what an earlier burn-in did not check says nothing about these.
            not_covered: result.notCovered?.length ? JSON.stringify(result.notCovered) : null,
            recording_check: check(eb('steps_version', '+', 1)) ?? null,
            updated_at: new Date(),
          }
        : {
            generation_status: 'FAILED',
            failure_reason: result.failureReason,
            ...(result.recordingCheck && { recording_check: check(eb.ref('steps_version')) }),
            updated_at: new Date(),
          },
    )
    .where('id', '=', testCaseId)
    .execute();
}

/** Stores healed steps as a new version, unless someone changed the steps since this run read them. */
export async function saveHealedSteps(
  db: DB,
  testCaseId: string,
  basedOnVersion: number,
  steps: Step[],
): Promise<number | undefined> {
  const row = await db
    .updateTable('test_cases')
    .set({ steps: JSON.stringify(steps), steps_version: basedOnVersion + 1, updated_at: new Date() })
    .where('id', '=', testCaseId)
    .where('steps_version', '=', basedOnVersion)
    .returning('steps_version')
    .executeTakeFirst();
  return row?.steps_version;
}
