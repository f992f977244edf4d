// The step registry: every kind of step, collected from the family files, in the order of `stepActions`
// (src/domain/steps.ts), which is the order the agent's tool list offers them. The agent's tools and `toStep`,
// replay's `performAction` and the exporter look a kind up here. Adding a kind: define it in its family's file (see
// kind.ts) and, for a new action, name it in `stepActions`; a new family file is one more import below
// (docs/architecture.md, "Adding a step kind").
import type OpenAI from 'openai';
import { stepActions, type StepAction } from '../../domain/steps.js';
import * as assertions from './assertions.js';
import * as email from './email.js';
import * as forms from './forms.js';
import * as http from './http.js';
import { isStepKind, stepTool, type StepKind, type ToolGroup } from './kind.js';
import * as navigation from './navigation.js';
import * as pointer from './pointer.js';
import * as scroll from './scroll.js';
import * as tabs from './tabs.js';
import * as visual from './visual.js';

const families = [navigation, pointer, forms, scroll, assertions, tabs, email, http, visual];
const order = (kind: StepKind) => stepActions.indexOf(kind.actions[0]);

export const stepKinds: readonly StepKind[] = families
  .flatMap((family) => Object.values(family).filter(isStepKind))
  .sort((a, b) => order(a) - order(b));

const byTool = new Map(stepKinds.map((k) => [k.tool, k]));
const byAction = new Map(stepKinds.flatMap((k) => k.actions.map((a) => [a, k] as const)));

/** The kind whose tool the agent called, if the name is one. */
export const kindOfTool = (name: string): StepKind | undefined => byTool.get(name);

/** The kind that records, replays and exports steps of this action. */
export const kindOfAction = (action: StepAction): StepKind | undefined => byAction.get(action);

/** The step tools offered at every step (no group), or those of one group. */
export function stepTools(group?: ToolGroup): OpenAI.ChatCompletionTool[] {
  return stepKinds.filter((k) => k.group === group).map(stepTool);
}
