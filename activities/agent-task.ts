import type { ActivityDeps } from './deps.js';
import type { ExecutionContext } from '../src/db/queries/execution.js';
import type { RunValues } from '../src/domain/run-values.js';
import type { AgentTask } from '../src/llm/prompts.js';
import { projectFileNames } from '../src/services/project-files.js';

/**
 * What the agent is told when it records for the test case of `ctx` (a burn-in, an inserted step): the application,
 * the goal with its expected result and scenario, and the names (never the values) of the configs and project files
 * it may use.
 */
export async function agentTask(
  deps: ActivityDeps,
  projectId: string,
  ctx: ExecutionContext,
  values: RunValues,
  goal: Pick<AgentTask, 'goal' | 'expectedResult' | 'scenario'>,
): Promise<AgentTask> {
  return {
    applicationName: ctx.application.name,
    ...goal,
    configNames: values.names(),
    projectFiles: await projectFileNames(deps, projectId),
  };
}
