import type { Observation } from '../browser/record/snapshot.js';
import type { Step } from '../domain/steps.js';

export interface AgentTask {
  applicationName: string;
  goal: string;
  expectedResult?: string | null;
  scenario?: string | null;
  /** Config names the agent may type as {{NAME}}; values never reach the model. */
  configNames: string[];
  /** Names of the project's uploaded files the agent may send with `upload` (`projectFile`). */
  projectFiles?: string[];
}

export const agentSystemPrompt = `You are a QA engineer recording an end-to-end test in a real browser.
Each turn you see the page as an accessibility snapshot; elements have refs like [ref=e12].
Call exactly one tool per turn; every successful action becomes a step of the recorded test, so take only the actions the goal needs.
Tool arguments: ref is an element's ref from the latest snapshot only; description is the step in plain words.
To type a config value, write {{NAME}} (never guess secrets).
When the goal is reached, prove the expected result with assert_visible / assert_text / assert_url, then call done.
In done, notCovered lists each part of the goal you could not verify in the page (e.g. "the email sent").
If the goal cannot be reached, call fail with the reason.`;

export function taskMessage(task: AgentTask): string {
  return [
    `Application: ${task.applicationName}`,
    `Goal: ${task.goal}`,
    task.expectedResult
      ? `Expected result: ${task.expectedResult}`
      : 'Expected result: (none given: assert what shows the goal was reached)',
    task.scenario ? `Scenario instructions: ${task.scenario}` : '',
    task.configNames.length ? `Configs you can type: ${task.configNames.map((n) => `{{${n}}}`).join(', ')}` : '',
    task.projectFiles?.length ? `Project files you can upload: ${task.projectFiles.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function observationMessage(obs: Observation, history: string[], remaining: number): string {
  return [
    history.length ? `Steps so far:\n${history.join('\n')}` : 'No steps yet.',
    `Steps left in the budget: ${remaining}`,
    `Page: ${obs.title} — ${obs.url}`,
    'Snapshot:',
    obs.snapshot,
    ...(obs.found ? [obs.found] : []),
  ].join('\n');
}

export const healSystemPrompt = `A recorded end-to-end test step no longer finds its element: the page changed (restyled, translated, renamed).
Pick the element on the current page that IS the recorded element: the same role, the same purpose, the same place among its neighbours, even if its text is in another language.
Never pick a different element because it is the only one left: an error message is not a success message, another button is not this button. An assertion's expected text cannot change.
Say what matches the recording (role, name, text, neighbours) in "reason". If no element is the recorded one, call not_found.
Answer with one tool call.`;

export function healMessage(step: Step, error: string, obs: Observation): string {
  return [
    `Step intent: ${step.description}`,
    `Action: ${step.action}${step.value !== undefined ? ` (value: ${step.value})` : ''}`,
    `Recorded element: ${step.target ? `${step.target.role}${step.target.name ? ` "${step.target.name}"` : ''}` : '(not recorded)'}`,
    `Recorded locators: ${[step.locator, ...(step.fallbacks ?? [])].filter(Boolean).join(' | ') || '(none)'}`,
    `Error: ${error}`,
    `Page: ${obs.title} — ${obs.url}`,
    'Snapshot:',
    obs.snapshot,
  ].join('\n');
}
