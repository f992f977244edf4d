// What src/llm may use of the browser besides the page view (src/browser/record/): the step registry and how a
// step is performed and recorded. .dependency-cruiser.mjs refuses any other import from src/llm into src/browser.
export { kindOfAction, kindOfTool, stepKinds, stepTools } from './registry.js';
export {
  parseStepArgs,
  refArgsOf,
  type ActionOptions,
  type StepKind,
  type ToolGroup,
  type ToStepContext,
} from './kind.js';
export { firstLine, StepFailedError } from './errors.js';
export { inStepSpan, performAction, watchActivity } from './actions.js';
export { emailFindings } from './email-steps.js';
export { httpSummary } from './http.js';
export { resolveLocator } from '../locators.js';
export { BrowserSession } from '../session/session.js';
export type { Healer } from '../replay/replay.js';
