// Which environment and device preset a run uses for each application: project settings (the application's
// defaults) < the test plan's parameters < the run's own overrides. Pure: the service resolves short ids to ids
// before and URLs/devices after.

/** What a run or a conversation names for one application's environment: a URL, an environment of it, or a mobile build. */
export type EnvironmentOverride =
  { url: string; name?: string } | { shortId: string } | { applicationBuildShortId: string };

/** A caller's override for one application, by short ids (the service resolves them). */
export interface ApplicationOverride {
  applicationShortId: string;
  environment?: EnvironmentOverride;
  devicePresetShortId?: string;
}

/** The project settings of one application. */
export interface ApplicationDefaults {
  applicationId: string;
  environmentId: string | null;
  devicePresetId: string | null;
}

/** A plan's parameters for one application (its environment is required, its device preset optional). */
export interface PlanParameters {
  applicationId: string;
  environmentId: string;
  devicePresetId: string | null;
}

/** A run's override for one application; `environment` is whatever the caller named (a URL, an environment, a build). */
export interface RunOverride<Environment> {
  applicationId: string;
  environment?: Environment;
  devicePresetId?: string;
}

export type EnvironmentChoice<Environment> =
  | { from: 'run'; environment: Environment }
  | { from: 'plan' | 'project'; environmentId: string }
  /** Neither the run, the plan nor the project names one: the application cannot run. */
  | { from: 'none' };

export interface ApplicationSettings<Environment> {
  environment: EnvironmentChoice<Environment>;
  devicePresetId: string | null;
}

/** The settings of each application in `applications`, by precedence. */
export function applicationSettings<Environment>(
  applications: ApplicationDefaults[],
  plan: PlanParameters[],
  overrides: RunOverride<Environment>[],
): Map<string, ApplicationSettings<Environment>> {
  const planByApp = new Map(plan.map((p) => [p.applicationId, p]));
  const overrideByApp = new Map(overrides.map((o) => [o.applicationId, o]));
  const settings = new Map<string, ApplicationSettings<Environment>>();
  for (const app of applications) {
    const param = planByApp.get(app.applicationId);
    const override = overrideByApp.get(app.applicationId);
    let environment: EnvironmentChoice<Environment>;
    if (override?.environment !== undefined) environment = { from: 'run', environment: override.environment };
    else if (param) environment = { from: 'plan', environmentId: param.environmentId };
    else if (app.environmentId) environment = { from: 'project', environmentId: app.environmentId };
    else environment = { from: 'none' };
    // A plan parameter without a device preset means "the application's default", not "no device".
    const devicePresetId = override?.devicePresetId ?? param?.devicePresetId ?? app.devicePresetId;
    settings.set(app.applicationId, { environment, devicePresetId });
  }
  return settings;
}

/** Overrides that name an application twice, or one with no test case in the run: both are caller mistakes. */
export function overrideProblems(
  overrides: { applicationId: string }[],
  runApplicationIds: Iterable<string>,
): { twice: string[]; notInRun: string[] } {
  const inRun = new Set(runApplicationIds);
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const o of overrides) {
    if (seen.has(o.applicationId)) twice.push(o.applicationId);
    seen.add(o.applicationId);
  }
  return { twice, notInRun: [...seen].filter((id) => !inRun.has(id)) };
}
