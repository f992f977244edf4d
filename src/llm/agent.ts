import type { Page } from 'playwright-core';
import type { Step } from '../domain/steps.js';
import {
  BrowserSession,
  emailFindings,
  firstLine,
  httpSummary,
  kindOfTool,
  parseStepArgs,
  inStepSpan,
  performAction,
  resolveLocator,
  watchActivity,
  type ActionOptions,
} from '../browser/steps/index.js';
import type { DialogAnswer } from '../domain/step-events.js';
import { pageAt, pageBringingActions, pagelessActions } from '../domain/step-pages.js';
import { redact } from '../browser/record/snapshot.js';
import { agentToolsWith, isToolGroup, toolGroupsFor } from './agent-tools.js';
import { stepPrompt, withRealRefs } from './agent-prompt.js';
import { callTool, type Llm } from './client.js';
import type { AgentTask } from './prompts.js';
import { summaryReservations } from './reservations.js';

export interface AgentOptions extends ActionOptions {
  llm: Llm;
  /** Most actions (successful or not) before the burn-in gives up. */
  maxSteps: number;
  /** Called after every action (the activity heartbeats here). */
  onProgress?: (progress: { step: number; action: string; ok: boolean; description: string }) => void;
  /**
   * Record on after these steps, already replayed on the page, telling the model `note` first: a verifying replay
   * that failed at the step after them (issue 32). The result's steps start with them.
   */
  resume?: { steps: Step[]; note: string };
}

export interface AgentResult {
  status: 'COMPLETED' | 'FAILED';
  steps: Step[];
  failureReason?: string;
  /** COMPLETED: the parts of the goal the agent said it could not verify (empty: none). */
  notCovered: string[];
  llmCalls: number;
  /** Prompt tokens of each call as the endpoint reported them (estimated by it). */
  promptTokens: number[];
  /** Of those, the ones the endpoint served from its prompt cache, call by call (uncached: the difference). */
  cachedTokens: number[];
}

/** A find keeps showing its matches in the next snapshots, while they are on the page: the last few finds. */
const findsKept = 3;

/**
 * The burn-in agent: observe, ask the model for one action, perform it through the same code replay uses,
 * record it. One LLM call per step; the prompt carries the task, a one-line history and the latest snapshot only.
 */
export async function runAgent(firstPage: Page, task: AgentTask, opts: AgentOptions): Promise<AgentResult> {
  // Tabs, dialogs and downloads: the step acts on the current tab, and records the ones it causes.
  const session = new BrowserSession(firstPage);
  let dialogAnswer: DialogAnswer | undefined;
  const steps: Step[] = [...(opts.resume?.steps ?? [])];
  const history: string[] = steps.map((step, i) => `${i + 1}. ${summarize(step)} ✓`);
  if (opts.resume) history.push(`${history.length + 1}. ${redact(opts.resume.note, opts.values.secrets())}`);
  const promptTokens: number[] = [];
  const cachedTokens: number[] = [];
  let llmCalls = 0;
  let asserted = steps.some((step) => step.action.startsWith('assert_'));
  let finds: string[] = [];
  let findAsked: string | undefined;
  const groups = toolGroupsFor([task.goal, task.expectedResult, task.scenario].filter(Boolean).join('\n'));
  const result = (status: AgentResult['status'], failureReason?: string, notCovered: string[] = []): AgentResult => ({
    status,
    steps,
    failureReason,
    notCovered,
    llmCalls,
    promptTokens,
    cachedTokens,
  });

  for (let turn = 0; turn < opts.maxSteps; turn++) {
    const page = await session.currentPage();
    const tools = agentToolsWith(groups);
    const prompt = await stepPrompt({
      page,
      task,
      history,
      remaining: opts.maxSteps - turn,
      secrets: opts.values.secrets(),
      tabs: await session.tabs.describe(),
      find: finds,
      findAsked,
      ...(opts.llm.pageTokens && { pageTokens: opts.llm.pageTokens }),
    });
    finds = prompt.obs.stillFound ?? [];
    findAsked = undefined;
    const call = await callTool(opts.llm, prompt.messages, tools);
    llmCalls++;
    if (call.usage) {
      promptTokens.push(call.usage.prompt_tokens);
      cachedTokens.push(call.usage.prompt_tokens_details?.cached_tokens ?? 0);
    }
    const args = call.args;
    const str = (key: string): string | undefined =>
      typeof args[key] === 'string' ? (args[key] as string) : undefined;
    const description = str('description') ?? call.name;

    if (call.name === 'done') {
      if (task.expectedResult && !asserted) {
        history.push(`${history.length + 1}. (done refused: assert the expected result first)`);
        continue;
      }
      const notCovered = [
        ...(Array.isArray(args.notCovered) ? args.notCovered : []),
        ...summaryReservations(str('summary')),
      ];
      return steps.length > 0
        ? result('COMPLETED', undefined, reservations(notCovered, opts.values.secrets()))
        : result('FAILED', 'the agent finished without recording any step');
    }
    if (call.name === 'fail')
      return result(
        'FAILED',
        `the agent could not reach the goal: ${redact(str('reason') ?? 'no reason given', opts.values.secrets())}`,
      );

    if (call.name === 'more_tools') {
      const group = args.group;
      if (isToolGroup(group)) groups.add(group);
      history.push(
        `${history.length + 1}. more_tools: ${isToolGroup(group) ? `the ${group} tools are offered now` : `no group "${String(group)}"`}`,
      );
      continue;
    }

    if (call.name === 'find') {
      // Answered by the next snapshots while its matches are on the page; not a step.
      const text = str('text') ?? '';
      finds = [...finds.filter((f) => f !== text), text].slice(-findsKept);
      findAsked = text;
      history.push(`${history.length + 1}. find "${text}": the matches follow the next snapshot`);
      continue;
    }

    if (call.name === 'handle_dialog') {
      dialogAnswer = {
        accept: args.accept !== false,
        ...(str('promptText') !== undefined && { promptText: str('promptText') }),
      };
      history.push(
        `${history.length + 1}. handle_dialog: the next dialog will be ${dialogAnswer.accept ? 'accepted' : 'dismissed'} ✓`,
      );
      continue;
    }

    let step: Step | undefined;
    try {
      step = await toStep(page, call.name, withRealRefs(call.name, args, prompt.refs), description, opts);
      const locator = step.locator ? resolveLocator(page, step.locator) : undefined;
      const answer = dialogAnswer;
      dialogAnswer = undefined;
      const acted = step;
      let actedOn: string | undefined;
      const recorded = await inStepSpan(acted, steps.length, () =>
        session.record(
          acted,
          async (tab) => {
            actedOn = tab.url();
            const activity = watchActivity(tab);
            await performAction(tab, acted, locator, opts);
            await activity.settle();
            if (pageBringingActions.has(acted.action) && !tab.isClosed()) actedOn = tab.url();
          },
          answer,
        ),
      );
      step = recorded.step;
      // In place: the session keeps this object, to mark it later as opening a tab that opened late.
      recordPageAt(step, actedOn, opts.baseUrl);
      steps.push(step);
      if (step.action.startsWith('assert_')) asserted = true;
      history.push(
        `${history.length + 1}. ${summarize(step)} ✓${recorded.notes.length ? ` (${redact(recorded.notes.join('; '), opts.values.secrets())})` : ''}${step.action === 'wait_for_email' ? emailFindings(opts.values) : ''}`,
      );
      opts.onProgress?.({ step: steps.length, action: step.action, ok: true, description: step.description });
    } catch (err) {
      // An error naming a ref names it as the model saw it.
      const why = prompt.refs ? prompt.refs.known(firstLine(err)) : firstLine(err);
      history.push(`${history.length + 1}. ${call.name} ${description} ✗ ${redact(why, opts.values.secrets())}`);
      opts.onProgress?.({ step: steps.length, action: call.name, ok: false, description });
    }
  }
  return result('FAILED', `goal not reached within ${opts.maxSteps} steps`);
}

/** The step a tool call records, by the called kind: its arguments read by the kind's schema. */
async function toStep(
  page: Page,
  name: string,
  args: Record<string, unknown>,
  description: string,
  opts: AgentOptions,
): Promise<Step> {
  const kind = kindOfTool(name);
  if (!kind) throw new Error(`unknown tool ${name || '(none)'}: use one of the tools offered`);
  return kind.toStep(parseStepArgs(kind, args), {
    page,
    description,
    baseUrl: opts.baseUrl,
    timeoutMs: opts.timeoutMs,
  });
}

const maxReservations = 10;
const maxReservationChars = 200;

/** What `done` says was not verified: short, distinct, redacted strings (anything else the model sent is dropped). */
function reservations(value: unknown, secrets: Record<string, string>): string[] {
  const items = (Array.isArray(value) ? value : [])
    .filter((v): v is string => typeof v === 'string')
    .map((v) => redact(v.replace(/\s+/g, ' ').trim(), secrets).slice(0, maxReservationChars))
    .filter(Boolean);
  return [...new Set(items)].slice(0, maxReservations);
}

/** Notes on the step the page it acted on (`at`, for the coverage map), unless it acts on no page. */
function recordPageAt(step: Step, url: string | undefined, baseUrl: string): void {
  if (pagelessActions.has(step.action) || url === undefined) return;
  const at = pageAt(url, baseUrl);
  if (at !== undefined) step.at = at;
}

function summarize(step: Step): string {
  return `${step.action}${step.locator ? ` ${step.locator}` : ''}${step.value !== undefined ? ` "${step.value}"` : ''}${httpSummary(step)}`;
}
