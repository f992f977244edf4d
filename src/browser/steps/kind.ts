// A kind of step, defined once: the tool the burn-in agent sees (a zod schema, turned into the tool's JSON Schema as
// the chat tools are), how a tool call becomes a recorded step, how replay performs it and how the exporter writes
// it. The families (navigation.ts, pointer.ts, forms.ts, assertions.ts, tabs.ts, email.ts, http.ts) define the
// kinds; index.ts lists them, and the agent, replay and the exporter look a kind up there instead of switching on
// the action. The step's data (`Step`, `stepActions`) stays in src/domain/steps.ts: workflows and the API read it.
import type OpenAI from 'openai';
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import type { InboxAccess } from '../../domain/inbox.js';
import type { RunValues } from '../../domain/run-values.js';
import type { Step, StepAction, StepElement } from '../../domain/steps.js';
import type { FailureKind } from '../../domain/verdicts.js';

export interface ActionOptions {
  /** Relative navigation targets resolve against it (the environment's URL). */
  baseUrl: string;
  /** What `{{NAME}}` references resolve to when the step runs: configs, TOTP codes, run variables. */
  values: RunValues;
  timeoutMs: number;
  /** Proctor's inbox, for `{{INBOX}}` and the email steps (absent: no inbox domain configured). */
  inbox?: InboxAccess;
  /** The project's uploaded files by name, for `upload` steps with `projectFile` (undefined: no such file). */
  projectFiles?: (name: string) => Promise<{ name: string; mimeType: string; buffer: Buffer } | undefined>;
  /** Where `assert_screenshot` steps find and keep their baselines (absent: a visual check fails, never passes). */
  visual?: VisualBaselines;
}

/**
 * The baselines of the test's visual checks for the environment and device preset it runs on (activities/visual.ts
 * keeps them in the blob store). `record`: the burn-in agent's session, which checks it can take the screenshot;
 * `compare`: a replay (burn-in's verifying replay is the first, and records the baseline).
 */
export interface VisualBaselines {
  mode: 'record' | 'compare';
  /** The step's baseline here, or another environment's on this device; undefined when there is none. */
  read(step: Step): Promise<Buffer | undefined>;
  write(step: Step, png: Buffer): Promise<void>;
  /** A failed check's images, kept with the run; the one taken is proposed as the step's new baseline. */
  differs(step: Step, images: { actual: Buffer; diff?: Buffer; ratio: number }): Promise<void>;
}

/** Tools a goal seldom needs, offered when its words call for them or `more_tools` adds them (src/llm/agent-tools.ts). */
export type ToolGroup = 'email' | 'http' | 'visual';

/** What a tool call becomes a step with: the page the refs point into. */
export interface ToStepContext {
  page: Page;
  /** The call's `description` (the tool's name when the model left it out). */
  description: string;
  baseUrl: string;
  timeoutMs: number;
}

/** What replay (and burn-in, through the same code) performs a step with. */
export interface PerformContext {
  page: Page;
  step: Step;
  /** The step's element, already found (and at replay verified), if it has one. */
  locator: Locator | undefined;
  /** `drag`: the verified drop target (replay); burn-in resolves the one it just recorded. */
  drop?: Locator;
  /** The step's value with its `{{NAME}}` references resolved. */
  value: string | undefined;
  opts: ActionOptions;
  timeout: number;
  /** The step's element; fails the step when it has none. */
  element(): Locator;
  /** The resolved value; fails the step when it has none. */
  text(): string;
}

/** What the exporter writes a step's statement with. */
export interface ExportContext {
  /** The step's element with every locator it has (`page.a.or(page.b).first()`), if it has one. */
  el: string | undefined;
  /** The step's value as a JS expression (literal text joined with config lookups), `''` without one. */
  value: string;
  valueExpression(value: string): string;
  /** The same expression as `el` for another element (a drop target). */
  elementOf(element: StepElement): string;
}

export interface StepKind<S extends z.ZodObject = z.ZodObject> {
  /** The tool's name as the agent sees it. */
  tool: string;
  description: string;
  /** The tool's arguments but `description`, which every step tool takes, last. */
  args: S;
  group?: ToolGroup;
  /** The actions of the Step union this kind records (`check` records check or uncheck). */
  actions: readonly [StepAction, ...StepAction[]];
  /** Whether the step's locator must find an element at replay (`required`) or may have one (`optional`). */
  element?: 'required' | 'optional';
  /**
   * What a replay failure of this kind is, once the element was found as recorded (replay-failures.ts): a check's
   * failure is an `assertion`, a navigation's the `environment`. Left out: judged by the error's words.
   */
  failure?: FailureKind;
  /** Arguments a call may send (refs named by the role of the element they point at, for the registry's test). */
  example: z.input<S>;
  toStep(args: z.output<S>, ctx: ToStepContext): Promise<Step> | Step;
  perform(ctx: PerformContext): Promise<void>;
  exportStatement(step: Step, ctx: ExportContext): string;
}

// Marks what defineStepKind made, so the registry can collect a family file's kinds among its other exports.
const stepKindMark = Symbol('stepKind');
export const isStepKind = (value: unknown): value is StepKind =>
  typeof value === 'object' && value !== null && stepKindMark in value;

/** Keeps the argument schema's type attached to the kind's functions. */
export const defineStepKind = <S extends z.ZodObject>(kind: StepKind<S>): StepKind =>
  Object.assign(kind as unknown as StepKind, { [stepKindMark]: true });

// The tool lists were hand-written JSON before (the model's prompt holds them at every step): zod's output is
// brought to the same shape, so the model sees the same bytes. Nested objects refuse unknown keys as the top does;
// an integer carries no bounds and a record no `propertyNames`.
const safeBound = Number.MAX_SAFE_INTEGER;
function asToolJson(ctx: { jsonSchema: Record<string, unknown> }): void {
  const s = ctx.jsonSchema;
  if (s.type === 'object' && s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
  if (s.type === 'object' && s.additionalProperties && s.propertyNames) delete s.propertyNames;
  if (s.type === 'integer' && s.minimum === -safeBound && s.maximum === safeBound) {
    delete s.minimum;
    delete s.maximum;
  }
}

// Arguments that name an element by a snapshot ref. The agent shows the model short aliases (`e5`) and maps every
// such argument back to Playwright's ref before the kind sees it; an argument it did not know held a ref reached
// `aria-ref=` unmapped and found another element (a mask recorded on the total instead of the clock). So the kind
// marks them where it declares them, and the agent reads the marks (`refArgsOf`): no separate list to forget.
// The registry is not zod's global one, so the tool's JSON Schema the model sees does not change.
const refMarks = z.registry<{ ref: true }>();

/** A tool argument holding a ref of the latest snapshot (in an array: each item is one). */
export const elementRef = (): z.ZodString => z.string().register(refMarks, { ref: true });

/** The kind's arguments that hold refs, by name; `many`: an array of them. */
export function refArgsOf(kind: StepKind): { key: string; many: boolean }[] {
  const inner = (s: z.core.$ZodType): z.core.$ZodType => {
    const def = s._zod.def as { type: string; innerType?: z.core.$ZodType };
    return (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType
      ? inner(def.innerType)
      : s;
  };
  const out: { key: string; many: boolean }[] = [];
  for (const [key, field] of Object.entries(kind.args.shape as Record<string, z.core.$ZodType>)) {
    const s = inner(field);
    const def = s._zod.def as { type: string; element?: z.core.$ZodType };
    if (refMarks.has(s)) out.push({ key, many: false });
    else if (def.type === 'array' && def.element && refMarks.has(inner(def.element))) out.push({ key, many: true });
  }
  return out;
}

const intent = z.string();

/** The tool the agent is offered for this kind. */
export function stepTool(kind: StepKind): OpenAI.ChatCompletionTool {
  const input = kind.args.extend({ description: intent });
  const { $schema: _schema, ...parameters } = z.toJSONSchema(input, {
    io: 'input',
    unrepresentable: 'any',
    override: asToolJson as never,
  });
  return { type: 'function', function: { name: kind.tool, description: kind.description, parameters } };
}

/**
 * The call's arguments as the kind's schema reads them. Models send null or '' for an argument they leave out: both
 * mean absent. A refusal is one line the model reads in its history: `click needs "ref"`, or the schema's own words.
 */
export function parseStepArgs<S extends z.ZodObject>(kind: StepKind<S>, args: Record<string, unknown>): z.output<S> {
  const given = Object.fromEntries(
    Object.entries(args).filter(([k, v]) => k !== 'description' && v !== null && v !== ''),
  );
  const parsed = kind.args.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const key = String(issue.path[0] ?? '');
  if (!issue.message.startsWith('Invalid')) return fail(issue.message);
  if (issue.code === 'invalid_type' && given[key] === undefined && issue.path.length === 1)
    return fail(`${kind.tool} needs "${key}"`);
  return fail(`${kind.tool}: "${issue.path.join('.')}" ${issue.message.toLowerCase()}`);
}

function fail(message: string): never {
  throw new Error(message);
}
