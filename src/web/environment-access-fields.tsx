import { FieldError, TextField, type FieldErrors, type FormBody } from './form-kit.js';

// An environment's extra headers and preset cookies (the auth toolkit's `access.headers` / `access.cookies`) as rows
// of the environment form. The API's rules hold: the lists replace the stored ones, a row without a value keeps the
// stored value of that name, and a secret value is write-only: its box is a password field, never filled back in.

interface StoredEntry {
  name: string;
  value: string | null;
  isSecret: boolean;
  path?: string;
}

/** Blank rows offered under the stored ones (no script adds rows: another save offers more). */
const blankRows = 2;
const kinds = {
  headers: {
    legend: 'Extra headers (optional)',
    noun: 'Header',
    hint: 'Sent with every request to the application, e.g. x-vercel-protection-bypass',
  },
  cookies: { legend: 'Cookies (optional)', noun: 'Cookie', hint: "Set on the environment's host before each test" },
} as const;
type Kind = keyof typeof kinds;

/** The posted rows of one list, in order; a row without a name is no entry. */
function rowsOf(form: FormBody, kind: Kind) {
  const count = Number(form[`${kind}.rows`] ?? 0);
  const rows = [];
  for (let i = 0; i < Math.min(count, 50); i++) {
    const name = form[`${kind}.${i}.name`]?.trim();
    if (!name) continue;
    const value = form[`${kind}.${i}.value`];
    rows.push({
      name,
      ...(value ? { value } : {}),
      isSecret: form[`${kind}.${i}.secret`] === 'on',
      ...(kind === 'cookies' && form[`${kind}.${i}.path`]?.trim() ? { path: form[`${kind}.${i}.path`]!.trim() } : {}),
    });
  }
  return rows;
}

/** `headers` and `cookies` of the API's `access`, when the form carried the lists (the first-run form does not). */
export function accessListsBody(form: FormBody) {
  return form['headers.rows'] === undefined
    ? {}
    : { headers: rowsOf(form, 'headers'), cookies: rowsOf(form, 'cookies') };
}

/** An issue's path in the API's body (`access.headers.0.name`) as the form field it is about. */
export const accessListField = (path: string): string | undefined =>
  /^access\.((headers|cookies)(\.\d+\.\w+)?)/.exec(path)?.[1];

/** The service words a refused list as `access.headers: …`; shown at that list rather than at the URL. */
export function atAccessList(errors: FieldErrors): FieldErrors {
  const moved: FieldErrors = {};
  for (const [field, message] of Object.entries(errors))
    moved[/^access\.(headers|cookies)/.exec(message)?.[1] ?? field] = message;
  return moved;
}

function List(props: { kind: Kind; stored: StoredEntry[]; form: FormBody; errors: FieldErrors; posted: boolean }) {
  const { kind, form, errors } = props;
  const { legend, noun, hint } = kinds[props.kind];
  // After a refused post the rows are what was posted; otherwise the stored entries and blank rows.
  const count = props.posted ? Number(form[`${kind}.rows`] ?? 0) : props.stored.length + blankRows;
  const row = (i: number) => {
    const stored = props.posted ? undefined : props.stored[i];
    const secret = stored ? stored.isSecret : form[`${kind}.${i}.secret`] === 'on';
    const n = i + 1;
    return (
      <div class="row">
        <TextField
          label={`${noun} ${n} name`}
          name={`${kind}.${i}.name`}
          value={stored?.name ?? form[`${kind}.${i}.name`]}
          errors={errors}
        />
        <TextField
          label={`${noun} ${n} value`}
          name={`${kind}.${i}.value`}
          type={secret ? 'password' : 'text'}
          value={stored ? (stored.value ?? undefined) : form[`${kind}.${i}.value`]}
          errors={errors}
          hint={stored?.isSecret ? 'A secret is stored: leave empty to keep it.' : undefined}
        />
        {kind === 'cookies' && (
          <TextField
            label={`${noun} ${n} path`}
            name={`${kind}.${i}.path`}
            value={stored?.path ?? form[`${kind}.${i}.path`]}
            errors={errors}
            hint="Default /"
          />
        )}
        <label>
          <input type="checkbox" name={`${kind}.${i}.secret`} checked={secret} /> {noun} {n} is secret (write-only)
        </label>
      </div>
    );
  };
  return (
    <fieldset>
      <legend>{legend}</legend>
      <span class="muted">{hint}. Empty a name to remove it.</span>
      <input type="hidden" name={`${kind}.rows`} value={String(count)} />
      {Array.from({ length: count }, (_, i) => row(i))}
      <FieldError name={kind} errors={errors} />
    </fieldset>
  );
}

/** The two lists, filled from the stored access (editing) or from what was posted (a refusal). */
export function AccessLists(props: {
  form: FormBody;
  errors: FieldErrors;
  stored?: { headers: StoredEntry[]; cookies: StoredEntry[] };
}) {
  const posted = props.form['headers.rows'] !== undefined;
  return (
    <>
      <List
        kind="headers"
        stored={props.stored?.headers ?? []}
        form={props.form}
        errors={props.errors}
        posted={posted}
      />
      <List
        kind="cookies"
        stored={props.stored?.cookies ?? []}
        form={props.form}
        errors={props.errors}
        posted={posted}
      />
    </>
  );
}
