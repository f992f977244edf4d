import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import { checkThenWrite, optional, TextField, type FieldErrors, type FormBody } from '../form-kit.js';
import { registerListedResource } from '../listed-resource.js';
import { CreateScenario, UpdateScenario } from '../../schemas/scenarios.js';
import {
  createScenario,
  deleteScenario,
  listScenarios,
  requireScenario,
  updateScenario,
  type ScenarioView,
} from '../../services/scenarios.js';

// Scenarios (reusable preconditions the agent follows before a test's goal): the list, create, edit and delete,
// validated by the API's CreateScenario / UpdateScenario and written by its service.

function ScenarioFields(form: FormBody, errors: FieldErrors) {
  return (
    <>
      <TextField label="Scenario name" name="name" value={form.name} errors={errors} required />
      <TextField label="Description" name="description" value={form.description} errors={errors} />
      <TextField
        label="Instructions"
        name="instructions"
        value={form.instructions}
        errors={errors}
        required
        multiline
        hint="What the agent does first, e.g. Sign in as {{SHOP_EMAIL}} and empty the cart"
      />
    </>
  );
}

/** The posted form as the API's body: an emptied description is absent on create, null (cleared) on edit. */
const bodyOf = (form: FormBody, cleared: undefined | null) => ({
  name: form.name,
  description: optional(form.description) ?? cleared,
  instructions: form.instructions ?? '',
});

const services = (c: Context<WebEnv>) => c.get('services');

export function registerScenarioForms(web: Hono<WebEnv>, base: string): void {
  registerListedResource<ScenarioView>(web, base, {
    path: '/scenarios',
    title: 'Scenarios',
    nav: 'scenarios',
    noun: 'scenario',
    empty: 'No scenarios yet.',
    columns: ['Name', 'Description', 'Instructions'],
    cells: (s) => [s.name, s.description ?? '', s.instructions],
    fields: ScenarioFields,
    formOf: (s) => ({ name: s.name, description: s.description ?? '', instructions: s.instructions }),
    list: (c) => listScenarios(services(c), c.get('session').projectId),
    require: (c, shortId) => requireScenario(services(c), c.get('session').projectId, shortId),
    create: (c, form) =>
      checkThenWrite(
        CreateScenario,
        bodyOf(form, undefined),
        (input) => createScenario(services(c), c.get('session').projectId, input),
        { at: 'name' },
      ),
    update: (c, scenario, form) =>
      checkThenWrite(
        UpdateScenario,
        bodyOf(form, null),
        (changes) => updateScenario(services(c), c.get('session').projectId, scenario.shortId, changes),
        { at: 'name' },
      ),
    remove: (c, scenario) => deleteScenario(services(c), c.get('session').projectId, scenario.shortId),
  });
}
