// A project's settings as one operation: how healed locators are kept, how often a failed test runs again, and
// the rule that quarantines flaky tests. Routes and the MCP stay thin adapters over these.
import { findProjectSettings, updateProject } from '../db/queries/projects.js';
import {
  defaultTestRetries,
  flakeWindow,
  maxTestRetries,
  minRuleFlakeRate,
  storedRuleRate,
  type QuarantineRule,
} from '../domain/flakiness.js';
import type { HealPolicy } from '../domain/steps.js';
import { InvalidError } from '../domain/errors.js';
import { systemActor, type AuditActor } from '../domain/audit.js';
import { recordAudit } from './audit-log.js';
import { findQualitySettings } from '../db/queries/issues.js';
import { defaultIssueResolveAfterRuns, maxIssueResolveAfterRuns } from '../domain/quality.js';
import type { ServiceContext } from './context.js';

export interface ProjectSettings {
  healPolicy: HealPolicy;
  /** Times a failed test of a run is executed again (0–3). */
  retries: number;
  /** Quarantine a test whose flake rate reaches `flakeRate` over at least `minRuns` runs; null: no rule. */
  quarantine: QuarantineRule | null;
  /** Clean runs of the tests that saw an open issue after which it resolves itself. */
  issueResolveAfterRuns: number;
  /** Request URL patterns whose failures are not quality signals (`*` any characters, else a substring). */
  signalIgnoreUrls: string[];
}

export async function getProjectSettings({ db }: ServiceContext, projectId: string): Promise<ProjectSettings> {
  const [row, quality] = await Promise.all([findProjectSettings(db, projectId), findQualitySettings(db, projectId)]);
  const issues = {
    issueResolveAfterRuns: quality?.issue_resolve_after_runs ?? defaultIssueResolveAfterRuns,
    signalIgnoreUrls: quality?.signal_ignore_urls ?? [],
  };
  if (!row) return { healPolicy: 'review', retries: defaultTestRetries, quarantine: null, ...issues };
  return {
    ...issues,
    healPolicy: row.heal_policy,
    retries: row.test_retries,
    quarantine:
      row.quarantine_flake_rate === null
        ? null
        : { flakeRate: storedRuleRate(row.quarantine_flake_rate), minRuns: row.quarantine_min_runs },
  };
}

/** Changes what is given (checked first, all or nothing) and returns the settings after the change. */
export async function updateProjectSettings(
  { db }: ServiceContext,
  projectId: string,
  change: Partial<ProjectSettings>,
  actor: AuditActor = systemActor,
): Promise<ProjectSettings> {
  if (
    change.retries !== undefined &&
    !(Number.isInteger(change.retries) && change.retries >= 0 && change.retries <= maxTestRetries)
  ) {
    throw new InvalidError(`retries: a whole number from 0 to ${maxTestRetries}`);
  }
  const after = change.issueResolveAfterRuns;
  if (after !== undefined && !(Number.isInteger(after) && after >= 1 && after <= maxIssueResolveAfterRuns)) {
    throw new InvalidError(`issueResolveAfterRuns: a whole number from 1 to ${maxIssueResolveAfterRuns}`);
  }
  const rule = change.quarantine;
  if (rule) {
    if (!(rule.flakeRate >= minRuleFlakeRate && rule.flakeRate <= 1))
      throw new InvalidError(`quarantine.flakeRate: a fraction from ${minRuleFlakeRate} to 1`);
    if (!(Number.isInteger(rule.minRuns) && rule.minRuns >= 1 && rule.minRuns <= flakeWindow)) {
      throw new InvalidError(
        `quarantine.minRuns: a whole number from 1 to ${flakeWindow} (the flake rate reads the last ${flakeWindow} runs)`,
      );
    }
  }
  const set = {
    ...(change.healPolicy !== undefined && { heal_policy: change.healPolicy }),
    ...(change.retries !== undefined && { test_retries: change.retries }),
    ...(after !== undefined && { issue_resolve_after_runs: after }),
    ...(change.signalIgnoreUrls !== undefined && { signal_ignore_urls: JSON.stringify(change.signalIgnoreUrls) }),
    ...(rule !== undefined &&
      (rule === null
        ? { quarantine_flake_rate: null }
        : { quarantine_flake_rate: rule.flakeRate, quarantine_min_runs: rule.minRuns })),
  };
  if (Object.keys(set).length > 0) {
    await updateProject(db, projectId, set);
    // A change of the quarantine rule is a quarantine decision too: the details say what the rule became.
    await recordAudit({ db }, { projectId, kind: 'project_settings.updated', actor, details: { ...change } });
  }
  return getProjectSettings({ db }, projectId);
}
