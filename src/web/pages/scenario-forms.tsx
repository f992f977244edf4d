import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { afterSave, check, FormProblems, formPage, optional, readForm, TextField, type FieldErrors, type FormBody } from '../form-kit.js';
import { CsrfField, notFoundPage } from '../layout.js';
import { notFoundAsUndefined } from './application-forms.js';
import { CreateScenario } from '../../schemas/scenarios.js';
import { createScenario, deleteScenario, listScenarios, requireScenario, type ScenarioView } from '../../services/scenarios.js';

// Scenarios (reusable preconditions the agent follows before a test's goal): the list, a create form validated by
// the API's CreateScenario and written by its service, and delete.

function ScenarioPage(props: { base: string; csrf: string; scenarios: ScenarioView[]; form: FormBody; errors: FieldErrors }) {
  const { form, errors } = props;
  const action = `${props.base}/scenarios`;
  return (
    <>
      <h1>Scenarios</h1>
      {props.scenarios.length === 0 ? <p>No scenarios yet.</p> : (
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Instructions</th><th scope="col">Change</th></tr></thead>
          <tbody>
            {props.scenarios.map((s) => (
              <tr>
                <td>{s.name}</td>
                <td>{s.description ?? ''}</td>
                <td>{s.instructions}</td>
                <td>
                  <form class="inline" method="post" action={`${action}/${s.shortId}/delete`}>
                    <CsrfField token={props.csrf} />
                    <button type="submit">Delete</button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Add a scenario</h2>
      <FormProblems errors={errors} />
      <form method="post" action={action}>
        <CsrfField token={props.csrf} />
        <TextField label="Scenario name" name="name" value={form.name} errors={errors} required />
        <TextField label="Description" name="description" value={form.description} errors={errors} />
        <TextField label="Instructions" name="instructions" value={form.instructions} errors={errors} required multiline hint="What the agent does first, e.g. Sign in as {{SHOP_EMAIL}} and empty the cart" />
        <p><button class="primary" type="submit">Add the scenario</button></p>
      </form>
    </>
  );
}

export function registerScenarioForms(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/scenarios');
  const show = async (c: Context<WebEnv>, form: FormBody, errors: FieldErrors) => {
    const scenarios = await listScenarios(c.get('deps').db, c.get('session').projectId);
    return formPage(c, { title: 'Scenarios', nav: 'scenarios' }, <ScenarioPage base={base} csrf={c.get('csrfToken')} scenarios={scenarios} form={form} errors={errors} />, Object.keys(errors).length > 0);
  };

  web.get('/scenarios', (c) => show(c, {}, {}));

  web.post('/scenarios', async (c) => {
    const form = await readForm(c);
    const input = check(CreateScenario, { name: form.name, description: optional(form.description), instructions: form.instructions ?? '' });
    if (!input.ok) return show(c, form, input.errors);
    await createScenario(c.get('deps').db, c.get('session').projectId, input.data);
    return afterSave(c, form, `${base}/scenarios`);
  });

  web.post('/scenarios/:scenario/delete', async (c) => {
    const scenario = await notFoundAsUndefined(() => requireScenario(c.get('deps').db, c.get('session').projectId, c.req.param('scenario')));
    if (!scenario) return notFoundPage(c, 'This scenario');
    await deleteScenario(c.get('deps').db, c.get('session').projectId, scenario.shortId);
    return c.redirect(`${base}/scenarios`, 303);
  });
}
