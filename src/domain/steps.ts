// Recorded steps: what burn-in writes and replay executes. Pure data, shared by workflows, activities and the API.
import type { StepDialog, StepDownload } from './step-events.js';
import type { EmailStep } from './inbox.js';
import type { HttpStep } from './http-step.js';

export const stepActions = [
  'navigate',
  'click',
  'fill',
  'select',
  'press',
  'hover',
  'check',
  'uncheck',
  'upload',
  'wait_for',
  'assert_visible',
  'assert_text',
  'assert_url',
  'wait_for_email',
  'open_link',
  'dblclick',
  'drag',
  'type',
  'scroll',
  'go_back',
  'reload',
  'switch_tab',
  'close_tab',
  'http_request',
  'assert_screenshot',
] as const;
export type StepAction = (typeof stepActions)[number];

export interface Step {
  action: StepAction;
  /**
   * A Playwright locator expression relative to `page`, e.g. `getByRole('button', { name: 'Add to cart' })`.
   * Parsed (never evaluated) at replay; written verbatim into exported specs.
   */
  locator?: string;
  /**
   * Other expressions for the same element. Replay tries all of them together with `locator` (first match in
   * this order wins); a heal puts its locator in front and keeps these, so a variant switch back needs no LLM.
   */
  fallbacks?: string[];
  /** What the element was when recorded: self-healing may only pick an element of the same role. */
  target?: StepTarget;
  /**
   * The typed text, option, key, URL, expected text or URL pattern. May reference configs as `{{NAME}}`:
   * substituted only when the step runs, so a secret never sits in the steps, a prompt or a log.
   */
  value?: string;
  /** The intent in plain words ("Add the first product to the cart"): what self-healing looks for. */
  description: string;
  /** `wait_for_email` (its `value` is the address, e.g. `{{INBOX}}`): which mail, how long, what it must hold. */
  email?: EmailStep;
  /** `drag`: the element the step's element is dropped on, recorded and verified like the step's own. */
  dropTarget?: StepElement;
  /** `scroll` inside a container (the step's element) rather than the element into view. */
  scroll?: ScrollSpec;
  /** The tab the step acts on: 0 (or absent) the first page, then pages in the order they opened. */
  page?: number;
  /** The step opens a new tab or popup; replay fails when none opens. */
  opensPage?: boolean;
  /** Dialogs the step opens, with their recorded answers (see step-events.ts). */
  dialogs?: StepDialog[];
  /** The file the step downloads and what it must be. */
  download?: StepDownload;
  /** `upload`: send the project file named by `value` (uploaded through POST /v1/files), not a generated one. */
  projectFile?: boolean;
  /** `http_request`: the API call, what it must answer and the run variables it saves. */
  http?: HttpStep;
  /** `assert_screenshot`: how the page (or the step's element) must look, against its stored baselines. */
  visual?: VisualCheck;
  /**
   * The page the step acted on, as burn-in saw it: the tab's path and query (origin stripped; a page off the
   * application's origin keeps its whole URL). For a step that brings a page up by itself (navigate, go_back, reload,
   * open_link) the page it brought up. Absent on steps recorded before it existed and on steps that act on no page
   * (a mail, an API call, a tab switch): src/domain/step-pages.ts infers those. Coverage reads it; replay does not.
   */
  at?: string;
}

/**
 * A visual check. Its baselines live in the blob store, one per environment and device preset, under the step's
 * `baseline` name: a new baseline a person accepts comes as a new name (a new steps version), so the old images
 * stay what older versions compared with.
 */
export interface VisualCheck {
  /** Names the step's baselines in the blob store (letters, digits, `-`). */
  baseline: string;
  /** Locators of what changes by nature (a clock, an avatar, a live region): painted over before comparing. */
  masks?: string[];
  /** How far a pixel's colour may move before it counts as differing, 0 to 1 (pixelmatch's `threshold`). */
  threshold?: number;
  /** The share of differing pixels that still passes, 0 to 1 (Playwright's `maxDiffPixelRatio`). */
  maxDiffPixelRatio?: number;
}

/** A step as a person edits it: a visual check added in the step editor has no baselines yet, so no name for them. */
export type EditedStep = Omit<Step, 'visual'> & { visual?: Omit<VisualCheck, 'baseline'> & { baseline?: string } };

/** Defaults of a visual check: pixelmatch's colour threshold, anti-aliasing ignored, no pixel differing (as Playwright). */
export const visualDefaults = { threshold: 0.1, maxDiffPixelRatio: 0 } as const;

/** An element other than the step's own (a drop target): its locators and what it was when recorded. */
export interface StepElement {
  locator: string;
  fallbacks?: string[];
  target?: StepTarget;
}

export const scrollDirections = ['up', 'down', 'left', 'right'] as const;

/** How a container is scrolled: a distance, or step by step until a text shows inside it (a lazy list). */
export interface ScrollSpec {
  direction: (typeof scrollDirections)[number];
  /** Per scroll; default the container's visible height (or width). */
  pixels?: number;
  /** Keep scrolling until this text is visible in the container; the step fails if it never is. */
  untilText?: string;
}

/** The element a step was recorded on, as the accessibility tree named it (`- button "Sign in"`). */
export interface StepTarget {
  role: string;
  /** Accessible name, or the text of a text-only element (a status line, a paragraph). */
  name?: string;
  /** The element's whole visible text when recorded (short elements only): the expectation of one without a name. */
  text?: string;
}

/** A step that checks the page (an assertion, a wait) rather than acting on it. */
export function isPageCheck(action: string): boolean {
  return action.startsWith('assert_') || action === 'wait_for';
}

/** Most locators kept per step (the primary and its fallbacks), so heal after heal cannot grow a step without bound. */
export const maxLocatorsPerStep = 6;

/**
 * The step with `expression` as its primary locator and every locator it had behind it (most recently
 * successful first, bounded): a heal adds an alternative, it never replaces the recorded ones.
 */
export function withLocatorInFront(step: Step, expression: string, extra: string[] = []): Step {
  const all = [expression, step.locator, ...(step.fallbacks ?? []), ...extra].filter((e): e is string => Boolean(e));
  const [locator, ...fallbacks] = [...new Set(all)].slice(0, maxLocatorsPerStep);
  return { ...step, locator, fallbacks };
}

/** Whether a project saves healed locators after a passing run (`auto`) or keeps them for a person to accept (`review`). */
export const healPolicies = ['auto', 'review'] as const;
export type HealPolicy = (typeof healPolicies)[number];

export interface RecordedSteps {
  /** Increases each time the steps change (burn-in, then every self-heal). */
  version: number;
  steps: Step[];
}

/** Browser state handed from a resume-from dependency to its dependent. */
export interface BrowserState {
  cookies: Array<{
    name: string;
    value: string;
    domain: string;
    path: string;
    expires: number;
    httpOnly: boolean;
    secure: boolean;
    sameSite: 'Strict' | 'Lax' | 'None';
  }>;
  /** Per origin: localStorage and sessionStorage (Playwright's storageState lacks the latter). */
  origins: Array<{
    origin: string;
    localStorage: Array<{ name: string; value: string }>;
    sessionStorage: Array<{ name: string; value: string }>;
  }>;
  /** Where the dependency ended, so the dependent can continue from there. */
  url?: string;
  /** The chain's `{{INBOX}}` address, so a dependent reads the mail its dependency made the application send. */
  inbox?: string;
}

// `{{INBOX:support}}` names a project's fixed inbox: a name with an argument, which no config name can be.
const configRef = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?::[a-z0-9][a-z0-9-]*)?)\s*\}\}/g;

/** Names of the configs a value references. */
export function configReferences(value: string): string[] {
  return [...value.matchAll(configRef)].map((m) => m[1]!);
}

/** Replaces `{{NAME}}` with config values; unknown names are left as written so the failure is visible. */
export function substituteConfigs(value: string, configs: Record<string, string>): string {
  return value.replace(configRef, (whole, name: string) => configs[name] ?? whole);
}
