import type { Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { registerApplicationForms } from './application-forms.js';
import { registerBadgePages } from './badge.js';
import { registerConfigForms } from './config-forms.js';
import { registerDevicePresetForms } from './device-preset-forms.js';
import { registerFirstRunPages } from './first-run.js';
import { registerGitIntegrationForms } from './git-integration-forms.js';
import { registerMergeRequestReviewForms } from './merge-request-review-forms.js';
import { registerPlanForms } from './plan-forms.js';
import { registerProjectFileForms } from './project-file-forms.js';
import { registerProjectSettingsForm } from './project-settings-form.js';
import { registerScenarioForms } from './scenario-forms.js';
import { registerScheduleForms } from './schedule-forms.js';
import { registerTestCaseForms } from './test-case-forms.js';

/**
 * The setup forms and the first-run guide. New things are made under `/new/<kind>` (a path of its own: under
 * `/test-cases` the word "new" would be taken for a test case id); changes to existing ones post under their
 * area, whose session and CSRF checks the area's page module declared, so this is registered after them.
 */
export function registerFormPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/new');
  registerFirstRunPages(web, base);
  registerApplicationForms(web, base);
  registerConfigForms(web, base);
  registerDevicePresetForms(web, base);
  registerTestCaseForms(web, base);
  registerPlanForms(web, base);
  registerProjectSettingsForm(web, base);
  registerBadgePages(web, base);
  registerScheduleForms(web, base);
  registerScenarioForms(web, base);
  registerGitIntegrationForms(web, base);
  registerMergeRequestReviewForms(web, base);
  registerProjectFileForms(web, base);
}
