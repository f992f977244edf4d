import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { afterSave, check, FormProblems, formPage, optional, readForm, TextField, type FieldErrors, type FormBody } from '../form-kit.js';
import { CsrfField, notFoundPage } from '../layout.js';
import { notFoundAsUndefined } from './application-forms.js';
import { CreateDevicePreset } from '../../schemas/device-presets.js';
import { createDevicePreset, deleteDevicePreset, listDevicePresets, requireDevicePreset, type DevicePresetView } from '../../services/device-presets.js';

// Device presets (viewport, scale, touch, user agent, locale, time zone): the list, a create form validated by the
// API's CreateDevicePreset and written by its service, and delete.

/** A number box as the schema wants it: what is not a number stays text, for the schema to refuse by name. */
const numberOf = (value: string | undefined): number | string | undefined =>
  value === undefined || value.trim() === '' ? undefined : Number.isFinite(Number(value)) ? Number(value) : value;

function PresetPage(props: { base: string; csrf: string; presets: DevicePresetView[]; form: FormBody; errors: FieldErrors }) {
  const { form, errors } = props;
  const action = `${props.base}/device-presets`;
  return (
    <>
      <h1>Device presets</h1>
      {props.presets.length === 0 ? <p>No device presets: tests run in a desktop viewport.</p> : (
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Viewport</th><th scope="col">Scale</th><th scope="col">Mobile, touch</th><th scope="col">Locale, time zone</th><th scope="col">Change</th></tr></thead>
          <tbody>
            {props.presets.map((p) => (
              <tr>
                <td>{p.name}</td>
                <td>{p.viewport.width} × {p.viewport.height}</td>
                <td>{p.deviceScaleFactor}</td>
                <td>{p.isMobile ? 'mobile' : 'desktop'}{p.hasTouch ? ', touch' : ''}</td>
                <td>{[p.locale, p.timezoneId].filter(Boolean).join(', ')}</td>
                <td>
                  <form class="inline" method="post" action={`${action}/${p.shortId}/delete`}>
                    <CsrfField token={props.csrf} />
                    <button type="submit">Delete</button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div id="preset-form">
        <h2>Add a device preset</h2>
        <FormProblems errors={errors} />
        <form method="post" action={action}>
          <CsrfField token={props.csrf} />
          <TextField label="Preset name" name="name" value={form.name} errors={errors} required />
          <TextField label="Viewport width (CSS pixels)" name="width" value={form.width ?? '390'} errors={errors} required />
          <TextField label="Viewport height (CSS pixels)" name="height" value={form.height ?? '844'} errors={errors} required />
          <TextField label="Device scale factor" name="deviceScaleFactor" value={form.deviceScaleFactor ?? '1'} errors={errors} />
          <label><input type="checkbox" name="isMobile" checked={form.isMobile === 'on'} /> Mobile</label>{' '}
          <label><input type="checkbox" name="hasTouch" checked={form.hasTouch === 'on'} /> Touch</label>
          <TextField label="Locale" name="locale" value={form.locale} errors={errors} hint="Optional, e.g. en-US" />
          <TextField label="Time zone" name="timezoneId" value={form.timezoneId} errors={errors} hint="Optional, e.g. Europe/Paris" />
          <TextField label="User agent" name="userAgent" value={form.userAgent} errors={errors} hint="Optional: the browser's own otherwise" />
          <p><button class="primary" type="submit">Add the device preset</button></p>
        </form>
      </div>
    </>
  );
}

export function registerDevicePresetForms(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/device-presets');
  const show = async (c: Context<WebEnv>, form: FormBody, errors: FieldErrors) => {
    const presets = await listDevicePresets(c.get('deps').db, c.get('session').projectId);
    // The form sits under the list: a refusal re-renders the page (htmx is not used here, the list would go stale).
    return formPage(c, { title: 'Device presets', nav: 'device-presets' }, <PresetPage base={base} csrf={c.get('csrfToken')} presets={presets} form={form} errors={errors} />, Object.keys(errors).length > 0);
  };

  web.get('/device-presets', (c) => show(c, {}, {}));

  web.post('/device-presets', async (c) => {
    const form = await readForm(c);
    const body = {
      name: form.name,
      viewport: { width: numberOf(form.width), height: numberOf(form.height) },
      deviceScaleFactor: numberOf(form.deviceScaleFactor),
      isMobile: form.isMobile === 'on',
      hasTouch: form.hasTouch === 'on',
      locale: optional(form.locale),
      timezoneId: optional(form.timezoneId),
      userAgent: optional(form.userAgent),
    };
    const input = check(CreateDevicePreset, body, (path) => path.replace(/^viewport\./, ''));
    if (!input.ok) return show(c, form, input.errors);
    await createDevicePreset(c.get('deps').db, c.get('session').projectId, input.data);
    return afterSave(c, form, `${base}/device-presets`);
  });

  web.post('/device-presets/:preset/delete', async (c) => {
    const preset = await notFoundAsUndefined(() => requireDevicePreset(c.get('deps').db, c.get('session').projectId, c.req.param('preset')));
    if (!preset) return notFoundPage(c, 'This device preset');
    await deleteDevicePreset(c.get('deps').db, c.get('session').projectId, preset.shortId);
    return c.redirect(`${base}/device-presets`, 303);
  });
}
