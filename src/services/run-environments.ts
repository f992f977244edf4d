// Which environment (a URL, or a mobile build) and device each application of a run uses, by precedence: run
// overrides, then the plan's, then the application's defaults (src/domain/precedence.ts). Apart from runs.ts, which
// writes, starts, reruns and cancels runs, because this is the one part that reads environments, builds and presets.
import type { DB } from '../db/database.js';
import { toDeviceSettings } from '../db/queries/execution.js';
import type { DeviceSettings } from '../domain/device.js';
import { findIdByShortId } from '../db/queries/lookups.js';
import { environmentForBuild } from '../db/queries/builds.js';
import { findOverrideTarget, missingTarget } from './application-overrides.js';
import { planApplicationRows } from '../db/queries/test-plan-views.js';
import { applicationDefaults } from '../db/queries/applications.js';
import { environmentTarget } from '../db/queries/environments.js';
import { findDevicePresetRow } from '../db/queries/device-presets.js';
import {
  applicationSettings,
  overrideProblems,
  type ApplicationOverride,
  type EnvironmentOverride,
  type RunOverride,
} from '../domain/precedence.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';

export interface ResolvedEnvironment {
  url: string | null;
  /** The mobile build the environment holds (then url is null). */
  buildId: string | null;
  device: DeviceSettings | null;
}

/** The environment columns of a run test. */
export const runTestEnvironment = (env: ResolvedEnvironment) => ({
  environmentUrl: env.url,
  buildId: env.buildId,
  device: env.device,
});

/** Environment URL (or mobile build) and device per application of the run, by precedence (src/domain/precedence.ts). */
export async function resolveEnvironments(
  db: DB,
  projectId: string,
  applicationIds: string[],
  planId: string | null,
  requested: ApplicationOverride[],
  dropUnrelated = false,
): Promise<Map<string, ResolvedEnvironment>> {
  const apps = await applicationDefaults(db, applicationIds);
  const params = planId ? await planApplicationRows(db, planId) : [];
  const inRun = new Set(apps.map((a) => a.short_id));
  const overrides = dropUnrelated ? requested.filter((o) => inRun.has(o.applicationShortId)) : requested;

  const runOverrides: RunOverride<EnvironmentOverride>[] = [];
  const shortIdOf = new Map<string, string>();
  for (const o of overrides) {
    const applicationId = await findIdByShortId(db, 'applications', projectId, o.applicationShortId);
    if (!applicationId) throw new NotFoundError('Application', o.applicationShortId);
    shortIdOf.set(applicationId, o.applicationShortId);
    let devicePresetId: string | undefined;
    if (o.devicePresetShortId) {
      devicePresetId = await findIdByShortId(db, 'device_presets', projectId, o.devicePresetShortId);
      if (!devicePresetId) throw new NotFoundError('Device preset', o.devicePresetShortId);
    }
    runOverrides.push({ applicationId, environment: o.environment, devicePresetId });
  }
  const { twice, notInRun } = overrideProblems(runOverrides, applicationIds);
  if (twice.length > 0) throw new InvalidError(`applications: ${shortIdOf.get(twice[0]!)} is listed twice`);
  if (notInRun.length > 0)
    throw new InvalidError(`applications: ${shortIdOf.get(notInRun[0]!)} has no test case in this run`);

  const settings = applicationSettings(
    apps.map((a) => ({
      applicationId: a.id,
      environmentId: a.default_environment_id,
      devicePresetId: a.default_device_preset_id,
    })),
    params.map((p) => ({
      applicationId: p.application_id,
      environmentId: p.environment_id,
      devicePresetId: p.device_preset_id,
    })),
    runOverrides,
  );
  const resolved = new Map<string, ResolvedEnvironment>();
  for (const app of apps) {
    const { environment, devicePresetId } = settings.get(app.id)!;
    let target: EnvironmentTarget;
    if (environment.from === 'none') {
      throw new InvalidError(
        `application "${app.name}" (${app.short_id}) has no environment: create one or set it on the test plan`,
      );
    } else if (environment.from !== 'run') {
      target = await environmentTarget(db, environment.environmentId);
    } else {
      target = await overrideTarget(db, projectId, app.id, environment.environment);
    }
    resolved.set(app.id, { ...target, device: devicePresetId ? await deviceOf(db, devicePresetId) : null });
  }
  return resolved;
}

type EnvironmentTarget = Pick<ResolvedEnvironment, 'url' | 'buildId'>;

/** What a run override names: a URL to browse, or a mobile build to install (which has no URL). */
async function overrideTarget(
  db: DB,
  projectId: string,
  applicationId: string,
  env: EnvironmentOverride,
): Promise<EnvironmentTarget> {
  const target = await findOverrideTarget({ db }, projectId, env, applicationId);
  if (!target) throw new NotFoundError(...missingTarget(env));
  // As the spec says: the run uses (and the project keeps) an environment holding that build.
  if (target.build) await environmentForBuild(db, target.build);
  return { url: target.url, buildId: target.buildId };
}

async function deviceOf(db: DB, presetId: string): Promise<DeviceSettings | null> {
  const preset = await findDevicePresetRow(db, presetId);
  return preset ? toDeviceSettings(preset) : null;
}
