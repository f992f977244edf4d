// The step registry: every kind of step, one line each, in the order the agent's tool list offers them. The agent's
// tools and `toStep`, replay's `performAction` and the exporter look a kind up here. Adding a kind: define it in its
// family's file (see kind.ts) and add its line below (docs/architecture.md, "Adding a step kind").
import type OpenAI from 'openai';
import type { StepAction } from '../../domain/steps.js';
import { assertText, assertUrl, assertVisible, waitFor } from './assertions.js';
import { openLink, waitForEmail } from './email.js';
import { fill, press, select, type, upload } from './forms.js';
import { httpRequest } from './http.js';
import { stepTool, type StepKind, type ToolGroup } from './kind.js';
import { goBack, navigate, reload } from './navigation.js';
import { check, click, dblclick, drag, hover } from './pointer.js';
import { scroll } from './scroll.js';
import { closeTab, switchTab } from './tabs.js';

export const stepKinds: readonly StepKind[] = [
  navigate,
  click,
  fill,
  select,
  press,
  hover,
  check,
  upload,
  waitFor,
  assertVisible,
  assertText,
  assertUrl,
  dblclick,
  drag,
  type,
  scroll,
  goBack,
  reload,
  switchTab,
  closeTab,
  waitForEmail,
  openLink,
  httpRequest,
];

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
