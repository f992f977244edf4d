import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, When } from '../components.js';
import {
  checkThenWrite,
  FieldError,
  formPage,
  FormProblems,
  invalidAttrs,
  optional,
  PostButton,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { CsrfField, notFoundPage } from '../layout.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { UploadProjectFile } from '../../schemas/project-files.js';
import {
  deleteProjectFile,
  listProjectFiles,
  maxProjectFileBytes,
  uploadProjectFile,
  type ProjectFileView,
} from '../../services/project-files.js';

// The project's files for tests' file inputs (an `upload` step's `projectFile`): the list, an upload form (a
// plain multipart post, no script needed) and delete. The bytes go through the API's UploadProjectFile schema and
// its service, as base64 as the API takes them.

const kib = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024))} KiB`;

function FilesPage(props: {
  base: string;
  csrf: string;
  files: ProjectFileView[];
  form: FormBody;
  errors: FieldErrors;
}) {
  const { errors } = props;
  const action = `${props.base}/files`;
  return (
    <>
      <h1>Files</h1>
      <p>
        Files tests send through file inputs: an <code>upload</code> step names one, at burn-in and at every replay.
      </p>
      {props.files.length === 0 ? (
        <p>No files yet.</p>
      ) : (
        <table>
          <ColumnHeads names={['Name', 'Type', 'Size', 'Uploaded', 'Change']} />
          <tbody>
            {props.files.map((f) => (
              <tr>
                <td>
                  <code>{f.name}</code>
                </td>
                <td>{f.type}</td>
                <td>{kib(f.size)}</td>
                <td>
                  <When at={f.createdAt} />
                </td>
                <td>
                  <PostButton
                    action={`${action}/${encodeURIComponent(f.name)}/delete`}
                    csrf={props.csrf}
                    text="Delete"
                    about={f.name}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Upload a file</h2>
      <FormProblems errors={errors} />
      <form method="post" action={action} enctype="multipart/form-data">
        <CsrfField token={props.csrf} />
        <div class="field">
          <label for="f-file">File</label>
          <span class="muted">At most {kib(maxProjectFileBytes)}. A file of the same name is replaced.</span>
          <input type="file" id="f-file" name="file" required {...invalidAttrs('file', errors)} />
          <FieldError name="file" errors={errors} />
        </div>
        <TextField
          label="Name in steps"
          name="name"
          value={props.form.name}
          errors={errors}
          hint="Optional: the file's own name otherwise"
        />
        <p>
          <button class="primary" type="submit">
            Upload
          </button>
        </p>
      </form>
    </>
  );
}

export function registerProjectFileForms(web: Hono<WebEnv>, base: string): void {
  // Before the area's checks, which read the body: a file over the limit is refused by its length, unread. The
  // margin is the multipart framing and the form's other fields.
  web.post(
    '/files',
    bodyLimit({
      maxSize: maxProjectFileBytes + 64 * 1024,
      onError: (c) => c.text(`A file is at most ${kib(maxProjectFileBytes)}`, 413),
    }),
  );
  protectedArea(web, base, '/files');
  const projectId = (c: Context<WebEnv>) => c.get('session').projectId;
  const show = async (c: Context<WebEnv>, form: FormBody, errors: FieldErrors) =>
    formPage(
      c,
      { title: 'Files', nav: 'files' },
      <FilesPage
        base={base}
        csrf={c.get('csrfToken')}
        files={await listProjectFiles(c.get('services'), projectId(c))}
        form={form}
        errors={errors}
      />,
      errors,
    );

  web.get('/files', (c) => show(c, {}, {}));

  web.post('/files', async (c) => {
    const body = await c.req.parseBody();
    const file = body.file;
    const form = { name: typeof body.name === 'string' ? body.name : '' };
    if (!(file instanceof File) || file.size === 0) return show(c, form, { file: 'choose a file that is not empty' });
    if (file.size > maxProjectFileBytes)
      return show(c, form, { file: `the file has ${file.size} bytes; at most ${maxProjectFileBytes} are kept` });
    const contentBase64 = Buffer.from(await file.arrayBuffer()).toString('base64');
    const written = await checkThenWrite(
      UploadProjectFile,
      { name: optional(form.name) ?? file.name, contentBase64 },
      (upload) => uploadProjectFile(c.get('services'), projectId(c), upload),
      { at: 'file', fieldOf: (path) => (path === 'contentBase64' ? 'file' : 'name') },
    );
    return written.ok ? c.redirect(`${base}/files`, 303) : show(c, form, written.errors);
  });

  web.post('/files/:name/delete', async (c) => {
    const deleted = await notFoundAsUndefined(() =>
      deleteProjectFile(c.get('services'), projectId(c), c.req.param('name')).then(() => true),
    );
    return deleted ? c.redirect(`${base}/files`, 303) : notFoundPage(c, 'This file');
  });
}
