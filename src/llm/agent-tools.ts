import type OpenAI from 'openai';
import { stepTools, type ToolGroup } from '../browser/steps/index.js';

type Property = { type: string; description?: string; enum?: string[]; items?: { type: string } };
type Properties = Record<string, Property>;

function tool(
  name: string,
  description: string,
  properties: Properties,
  required: string[],
): OpenAI.ChatCompletionTool {
  return {
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
  };
}

// The tool list goes with every step and is most of a step's prompt (1,321 tokens as the model reads it, before
// this), so a parameter whose name says it has no description: `ref` and `description` are explained once, in the
// system prompt (src/llm/prompts.ts), instead of in each of two dozen tools. The step tools come from the step
// registry (src/browser/steps/registry.ts); these are the agent's own, which record no step.
const text: Property = { type: 'string' };

/** The browser agent's tools offered at every step: each successful step tool call becomes one recorded step. */
export const agentTools: OpenAI.ChatCompletionTool[] = [
  ...stepTools(),
  tool('handle_dialog', 'Answer the next alert/confirm/prompt', { accept: { type: 'boolean' }, promptText: text }, [
    'accept',
  ]),
  // Not a step: the next snapshot lists the matching elements, found in the parts compaction collapsed or cut.
  tool('find', 'List elements containing text, with refs (for parts not shown)', { text }, ['text']),
];

/** The two that end the session, last in the list. */
const endTools: OpenAI.ChatCompletionTool[] = [
  tool(
    'done',
    'Goal reached and asserted',
    { summary: text, notCovered: { type: 'array', items: { type: 'string' } } },
    ['summary'],
  ),
  tool('fail', 'The goal cannot be reached', { reason: text }, ['reason']),
];

/**
 * Tools a goal seldom needs, offered from the start only when its words suggest them (~300 tokens a step saved
 * otherwise); `more_tools` adds a group at any point, for the rest of the burn-in. Either way the list stays the
 * same from one step to the next, so the prompt's prefix (system prompt and tools) is cached by providers that do.
 */
export type { ToolGroup };
const toolGroups: Record<ToolGroup, { tools: OpenAI.ChatCompletionTool[]; words: RegExp; what: string }> = {
  email: {
    tools: stepTools('email'),
    words:
      /\b(e-?mails?|mail(box)?|inbox|otp|one[- ]time|codes?|verif\w*|magic|invit\w*|sign[- ]?up|regist\w*|reset|forgot\w*|newsletter|subscri\w*|notif\w*)\b/i,
    what: "email (a mail's code or link)",
  },
  http: {
    tools: stepTools('http'),
    words: /\b(api|https?|endpoints?|requests?|webhooks?|rest|json|seed\w*|graphql|backend)\b/i,
    what: "http (call the app's API)",
  },
  visual: {
    tools: stepTools('visual'),
    words: /\b(looks?|visual\w*|screenshots?|layouts?|styl\w*|render\w*|appearance|pixels?)\b/i,
    what: 'visual (a screenshot check)',
  },
};
const groupNames = Object.keys(toolGroups) as ToolGroup[];

/** The groups a task's words call for. */
export function toolGroupsFor(text: string): Set<ToolGroup> {
  return new Set(groupNames.filter((g) => toolGroups[g].words.test(text)));
}

/** The agent's tools with these groups, and `more_tools` while a group is left out. */
export function agentToolsWith(groups: ReadonlySet<ToolGroup>): OpenAI.ChatCompletionTool[] {
  const missing = groupNames.filter((g) => !groups.has(g));
  const extra = groupNames.filter((g) => groups.has(g)).flatMap((g) => toolGroups[g].tools);
  const more = missing.length
    ? [
        tool(
          'more_tools',
          `Add tools: ${missing.map((g) => toolGroups[g].what).join('; ')}`,
          { group: { type: 'string', enum: missing } },
          ['group'],
        ),
      ]
    : [];
  return [...agentTools, ...extra, ...more, ...endTools];
}

export const isToolGroup = (value: unknown): value is ToolGroup =>
  typeof value === 'string' && (groupNames as string[]).includes(value);

export const healTools: OpenAI.ChatCompletionTool[] = [
  tool(
    'select_element',
    'The element on the current page that is the recorded element',
    {
      ref: { type: 'string', description: 'Element ref, e.g. e12' },
      reason: { type: 'string', description: 'What matches the recording: role, name, text, neighbours' },
    },
    ['ref', 'reason'],
  ),
  tool(
    'not_found',
    'No element on the page fulfills the step',
    { reason: { type: 'string', description: 'What is missing' } },
    ['reason'],
  ),
];
