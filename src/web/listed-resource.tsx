import type { Context, Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { protectedArea } from './area.js';
import { Table } from './components.js';
import type { WebEnv } from './context.js';
import {
  afterSave,
  formPage,
  FormProblems,
  EditAndDelete,
  readForm,
  SubmitOrCancel,
  type Checked,
  type FieldErrors,
  type FormBody,
} from './form-kit.js';
import { CsrfField } from './layout.js';
import { routesAbout } from './found.js';
import type { NavKey } from './nav.js';
import { notFoundAsUndefined } from '../domain/errors.js';

// A project's list of simple named things (device presets, scenarios): the table with Edit and Delete, the add form
// under it, and an edit page. Each kind says how its row looks, which fields its form has and how a posted form
// becomes a write through its API's schema and service; the routes, refusals and redirects are the same for all.

export interface ListedResource<V extends { shortId: string; name: string }> {
  /** The area's path, e.g. `/device-presets`. */
  path: string;
  title: string;
  nav: NavKey;
  /** Singular, lower case: "device preset" makes "Add a device preset", "Save the device preset". */
  noun: string;
  /** What the page says when there is none. */
  empty: string;
  columns: string[];
  cells(view: V): Child[];
  /** The form's fields, filled from `form` (what was typed, or the thing being edited). */
  fields(form: FormBody, errors: FieldErrors): Child;
  /** The edit form's values for an existing one. */
  formOf(view: V): FormBody;
  list(c: Context<WebEnv>): Promise<V[]>;
  require(c: Context<WebEnv>, shortId: string): Promise<V>;
  /** Validates (the API's schema) and writes (the API's service), as `checkThenWrite` does: saved, or the refusals. */
  create(c: Context<WebEnv>, form: FormBody): Promise<Checked<unknown>>;
  update(c: Context<WebEnv>, view: V, form: FormBody): Promise<Checked<unknown>>;
  remove(c: Context<WebEnv>, view: V): Promise<void>;
}

function ListPage<V extends { shortId: string; name: string }>(props: {
  r: ListedResource<V>;
  action: string;
  csrf: string;
  rows: V[];
  form: FormBody;
  errors: FieldErrors;
}) {
  const { r, action, csrf } = props;
  return (
    <>
      <h1>{r.title}</h1>
      {props.rows.length === 0 ? (
        <p>{r.empty}</p>
      ) : (
        <Table label={r.title}>
          <thead>
            <tr>
              {r.columns.map((col) => (
                <th scope="col">{col}</th>
              ))}
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr>
                {r.cells(row).map((cell) => (
                  <td>{cell}</td>
                ))}
                <td>
                  <EditAndDelete root={`${action}/${row.shortId}`} csrf={csrf} about={row.name} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <h2>Add a {r.noun}</h2>
      <FormProblems errors={props.errors} />
      <form method="post" action={action}>
        <CsrfField token={csrf} />
        {r.fields(props.form, props.errors)}
        <p>
          <button class="primary" type="submit">
            Add the {r.noun}
          </button>
        </p>
      </form>
    </>
  );
}

function EditPage<V extends { shortId: string; name: string }>(props: {
  r: ListedResource<V>;
  action: string;
  csrf: string;
  view: V;
  form: FormBody;
  errors: FieldErrors;
}) {
  const { r, action } = props;
  return (
    <>
      <h1>{`${r.noun[0]!.toUpperCase()}${r.noun.slice(1)} ${props.view.name}`}</h1>
      <FormProblems errors={props.errors} />
      <form method="post" action={`${action}/${props.view.shortId}`}>
        <CsrfField token={props.csrf} />
        {r.fields(props.form, props.errors)}
        <SubmitOrCancel text={`Save the ${r.noun}`} cancel={action} />
      </form>
    </>
  );
}

export function registerListedResource<V extends { shortId: string; name: string }>(
  web: Hono<WebEnv>,
  base: string,
  r: ListedResource<V>,
): void {
  protectedArea(web, base, r.path);
  const action = `${base}${r.path}`;
  // The add form sits under the list: a refusal re-renders the whole page (htmx would leave the list stale).
  const showList = async (c: Context<WebEnv>, form: FormBody, errors: FieldErrors) =>
    formPage(
      c,
      { title: r.title, nav: r.nav },
      <ListPage r={r} action={action} csrf={c.get('csrfToken')} rows={await r.list(c)} form={form} errors={errors} />,
      errors,
    );
  const showEdit = (c: Context<WebEnv>, view: V, form: FormBody, errors: FieldErrors) =>
    formPage(
      c,
      { title: `${r.title}: ${view.name}`, nav: r.nav },
      <EditPage r={r} action={action} csrf={c.get('csrfToken')} view={view} form={form} errors={errors} />,
      errors,
    );
  // Another project's id is the same 404 page as a made-up one.
  const one = routesAbout(
    web,
    (c) => notFoundAsUndefined(() => r.require(c, c.req.param('id') ?? '')),
    `This ${r.noun}`,
  );

  web.get(r.path, (c) => showList(c, {}, {}));

  web.post(r.path, async (c) => {
    const form = await readForm(c);
    const written = await r.create(c, form);
    return written.ok ? afterSave(c, form, action) : showList(c, form, written.errors);
  });

  one.get(`${r.path}/:id/edit`, (c, view) => showEdit(c, view, r.formOf(view), {}));

  one.post(`${r.path}/:id`, async (c, view) => {
    const form = await readForm(c);
    const written = await r.update(c, view, form);
    return written.ok ? afterSave(c, form, action) : showEdit(c, view, form, written.errors);
  });

  one.post(`${r.path}/:id/delete`, async (c, view) => {
    await r.remove(c, view);
    return c.redirect(action, 303);
  });
}
