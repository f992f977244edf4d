import type { ActivityDeps } from './deps.js';
import { cancellationSignal } from './heartbeat.js';
import { inboxFor } from './inbox.js';
import type { ActionOptions } from '../src/browser/steps/actions.js';
import { loadProjectFile } from '../src/services/project-files.js';

/**
 * What every activity that performs steps gives them from the project, the same for a burn-in, its verifying
 * replay, a dependency's replay, a step insertion and a run: the project's inbox, its files and the step timeout.
 */
export function projectStepOptions(
  deps: ActivityDeps,
  projectId: string,
): Pick<ActionOptions, 'inbox' | 'projectFiles' | 'timeoutMs'> {
  return {
    inbox: inboxFor(deps, projectId, cancellationSignal()),
    projectFiles: (name) => loadProjectFile(deps, projectId, name),
    timeoutMs: deps.stepTimeoutMs ?? 10_000,
  };
}
