import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { z } from '@hono/zod-openapi';
import type { WebEnv } from './context.js';
import { CsrfField, renderPage } from './layout.js';
import type { NavKey } from './nav.js';
import { DomainError } from '../domain/errors.js';

// What the setup forms share: reading a posted form, validating it with the API's own zod schema (never a copy of
// its rules), and showing each refusal next to the field it is about.

/** A posted form's text fields (files are not taken here). */
export type FormBody = Record<string, string>;

/** Field name -> the first message about it; '' holds what is about no one field (a refused write, say). */
export type FieldErrors = Record<string, string>;

export async function readForm(c: Context<WebEnv>): Promise<FormBody> {
  // The CSRF check already parsed the body, and Hono keeps that parse: multi-valued fields are read by distinct names.
  const body = await c.req.parseBody();
  const form: FormBody = {};
  for (const [key, value] of Object.entries(body)) if (typeof value === 'string' && key !== '_csrf') form[key] = value;
  return form;
}

/** A text field as the schema wants it: an empty box is "not given". */
export const optional = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value;

export type Checked<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors };

/**
 * The input checked by `schema`, each issue under the form field it names. `fieldOf` maps an issue's path to the
 * form's field name when the two differ (the first environment's `url` is the form's `environmentUrl`).
 */
export function check<S extends z.ZodType>(
  schema: S,
  input: unknown,
  fieldOf: (path: string) => string = (p) => p,
): Checked<z.infer<S>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues) {
    const field = fieldOf(issue.path.map(String).join('.'));
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}

/**
 * Runs a write; a refusal of the service (not found, invalid, conflict) becomes an error shown at `field` instead
 * of an error page, so the person keeps what they typed. Services word a refusal about one field as
 * `field: message`; when that field is one of `fields` the message goes there.
 */
export async function refusedAt<T>(
  field: string,
  write: () => Promise<T>,
  fields: readonly string[] = [],
): Promise<Checked<T>> {
  try {
    return { ok: true, data: await write() };
  } catch (err) {
    if (!(err instanceof DomainError) || err.kind === 'Unavailable') throw err;
    const named = /^([A-Za-z]+): /.exec(err.message)?.[1];
    return { ok: false, errors: { [named && fields.includes(named) ? named : field]: err.message } };
  }
}

/**
 * A form's save: `input` checked by `schema` (each issue at its field, see `check`), then written by `write` (a
 * refusal at `refused.at`, or at one of `refused.fields` it names, see `refusedAt`). Either failure comes back as the
 * errors to show with the form again.
 */
export async function checkThenWrite<S extends z.ZodType, T>(
  schema: S,
  input: unknown,
  write: (data: z.infer<S>) => Promise<T>,
  refused: { at: string; fields?: readonly string[]; fieldOf?: (path: string) => string },
): Promise<Checked<T>> {
  const checked = check(schema, input, refused.fieldOf);
  return checked.ok ? refusedAt(refused.at, () => write(checked.data), refused.fields) : checked;
}

/**
 * A form page: the whole page for a plain post, only the form for htmx (which swaps 2xx answers only, so a refusal
 * reaches it as 200 and a plain post as 400). `errors` are the form's refusals, none when it is first shown.
 */
export function formPage(
  c: Context<WebEnv>,
  page: { title: string; nav?: NavKey },
  content: Child,
  errors: FieldErrors,
) {
  if (c.req.header('hx-request')) return c.html(<>{content}</>, 200);
  return renderPage(c, page, content, Object.keys(errors).length > 0 ? 400 : 200);
}

/** "Not saved" at the top of a refused form, and the refusal that is about no one field. */
export function FormProblems(props: { errors: FieldErrors }) {
  const count = Object.keys(props.errors).length;
  if (count === 0) return <></>;
  return (
    <div role="alert">
      <p class="error">Not saved: {count === 1 ? 'one problem' : `${count} problems`} below.</p>
      {props.errors[''] && <p class="error">{props.errors['']}</p>}
    </div>
  );
}

const safeId = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '-');
const errorId = (name: string) => `${safeId(name)}-error`;
/** The id of a field's box, which its label names. */
const fieldId = (name: string) => `f-${safeId(name)}`;

/** The message under a field, tied to it with aria-describedby. */
export function FieldError(props: { name: string; errors: FieldErrors }) {
  const message = props.errors[props.name];
  return message ? (
    <span class="error" id={errorId(props.name)}>
      {message}
    </span>
  ) : (
    <></>
  );
}

/** The attributes that mark a field refused and point at its message. */
export const invalidAttrs = (name: string, errors: FieldErrors) =>
  errors[name] ? { 'aria-invalid': 'true', 'aria-describedby': errorId(name) } : {};

/** A labelled text input with its inline error. A `password` field is never filled back in. */
export function TextField(props: {
  label: string;
  name: string;
  value?: string;
  errors: FieldErrors;
  type?: 'text' | 'url' | 'password' | 'email';
  required?: boolean;
  hint?: string;
  multiline?: boolean;
}) {
  const id = fieldId(props.name);
  const value = props.type === 'password' ? '' : (props.value ?? '');
  const attrs = { id, name: props.name, required: props.required, ...invalidAttrs(props.name, props.errors) };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint && <span class="muted">{props.hint}</span>}
      {props.multiline ? (
        <textarea rows={3} {...attrs}>
          {value}
        </textarea>
      ) : (
        <input
          type={props.type ?? 'text'}
          value={value}
          autocomplete={props.type === 'password' ? 'new-password' : 'off'}
          {...attrs}
        />
      )}
      <FieldError name={props.name} errors={props.errors} />
    </div>
  );
}

/** One choice among fixed options, each `[value, label]`: the one equal to `value` is chosen. */
interface Choice {
  name: string;
  options: readonly (readonly [value: string, label: string])[];
  value: string | undefined;
  errors: FieldErrors;
}

/** A labelled choice as a select box, with its inline error. */
export function SelectField(props: Choice & { label: string }) {
  const id = fieldId(props.name);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} {...invalidAttrs(props.name, props.errors)}>
        {props.options.map(([value, label]) => (
          <option value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
      <FieldError name={props.name} errors={props.errors} />
    </div>
  );
}

/**
 * Boxes refused together (a set of checkboxes, a choice of radios): the fieldset carries the refusal of `name`, its
 * message under the boxes.
 */
export function FieldGroup(props: { legend: string; name: string; errors: FieldErrors; children: Child }) {
  return (
    <fieldset {...invalidAttrs(props.name, props.errors)}>
      <legend>{props.legend}</legend>
      {props.children}
      <FieldError name={props.name} errors={props.errors} />
    </fieldset>
  );
}

/** A choice as radios under a legend; a refusal is shown at `errorAt` (`name` unless given). */
export function Radios(props: Choice & { legend: string; errorAt?: string }) {
  return (
    <FieldGroup legend={props.legend} name={props.errorAt ?? props.name} errors={props.errors}>
      {props.options.map(([value, label]) => (
        <label>
          <input type="radio" name={props.name} value={value} checked={value === props.value} /> {label}
        </label>
      ))}
    </FieldGroup>
  );
}

/** A checkbox labelled by its children, ticked when the form being shown again had it ticked (`on`). */
export function Checkbox(props: { name: string; form: FormBody; children: Child }) {
  return (
    <label>
      <input type="checkbox" name={props.name} checked={props.form[props.name] === 'on'} /> {props.children}
    </label>
  );
}

/**
 * Where a saved form goes: back to the first-run guide when the person came from it (`from=start`), else
 * `fallback`. A plain post is redirected (POST-redirect-GET); htmx is told to load the page (`HX-Redirect`), so
 * it does not swap a whole page into the form.
 */
export function afterSave(c: Context<WebEnv>, form: FormBody, fallback: string) {
  const url = form.from === 'start' ? `${c.get('base')}/start` : fallback;
  if (c.req.header('hx-request')) {
    c.header('HX-Redirect', url);
    return c.body(null, 200);
  }
  return c.redirect(url, 303);
}

/** A form's last line: its primary button, and Cancel back to `cancel`. */
export function SubmitOrCancel(props: { text: string; cancel: string }) {
  return (
    <p>
      <button class="primary" type="submit">
        {props.text}
      </button>{' '}
      <a href={props.cancel}>Cancel</a>
    </p>
  );
}

/** Keeps "came from the first-run guide" across a refused post. */
export function FromField(props: { form: FormBody }) {
  return props.form.from === 'start' ? <input type="hidden" name="from" value="start" /> : <></>;
}

/**
 * A form of one button (Delete, Revoke) posting to `action` with the CSRF token. Its accessible name adds what it
 * acts on, `about` ("Delete Pixel 7"), where a table has one such button per row and the row's cells do not say it.
 */
export function PostButton(props: { action: string; csrf: string; text: string; about?: string }) {
  return (
    <form class="inline" method="post" action={props.action}>
      <CsrfField token={props.csrf} />
      <button type="submit" aria-label={props.about && `${props.text} ${props.about}`}>
        {props.text}
      </button>
    </form>
  );
}

/** A row's link to `${root}/edit` (worded `edit`) and its Delete button posting to `${root}/delete`. */
export function EditAndDelete(props: { root: string; csrf: string; edit?: string; about?: string }) {
  const edit = props.edit ?? 'Edit';
  return (
    <>
      <a href={`${props.root}/edit`} aria-label={props.about && `${edit} ${props.about}`}>
        {edit}
      </a>{' '}
      <PostButton action={`${props.root}/delete`} csrf={props.csrf} text="Delete" about={props.about} />
    </>
  );
}
