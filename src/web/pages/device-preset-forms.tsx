import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import { Checkbox, checkThenWrite, optional, TextField, type FieldErrors, type FormBody } from '../form-kit.js';
import { registerListedResource } from '../listed-resource.js';
import { CreateDevicePreset, UpdateDevicePreset } from '../../schemas/device-presets.js';
import {
  createDevicePreset,
  deleteDevicePreset,
  listDevicePresets,
  requireDevicePreset,
  updateDevicePreset,
  type DevicePresetView,
} from '../../services/device-presets.js';

// Device presets (viewport, scale, touch, user agent, locale, time zone): the list, create, edit and delete,
// validated by the API's CreateDevicePreset / UpdateDevicePreset and written by its service.

/** A number box as the schema wants it: what is not a number stays text, for the schema to refuse by name. */
const numberOf = (value: string | undefined): number | string | undefined =>
  value === undefined || value.trim() === '' ? undefined : Number.isFinite(Number(value)) ? Number(value) : value;

/** The posted form as the API's body; `cleared` is what an empty optional box means (absent on create, null on edit). */
function bodyOf(form: FormBody, cleared: undefined | null) {
  return {
    name: form.name,
    viewport: { width: numberOf(form.width), height: numberOf(form.height) },
    deviceScaleFactor: numberOf(form.deviceScaleFactor),
    isMobile: form.isMobile === 'on',
    hasTouch: form.hasTouch === 'on',
    locale: optional(form.locale) ?? cleared,
    timezoneId: optional(form.timezoneId) ?? cleared,
    userAgent: optional(form.userAgent) ?? cleared,
  };
}

const fieldOf = (path: string) => path.replace(/^viewport\./, '');

function PresetFields(form: FormBody, errors: FieldErrors) {
  return (
    <>
      <TextField label="Preset name" name="name" value={form.name} errors={errors} required />
      <TextField
        label="Viewport width (CSS pixels)"
        name="width"
        value={form.width ?? '390'}
        errors={errors}
        required
      />
      <TextField
        label="Viewport height (CSS pixels)"
        name="height"
        value={form.height ?? '844'}
        errors={errors}
        required
      />
      <TextField
        label="Device scale factor"
        name="deviceScaleFactor"
        value={form.deviceScaleFactor ?? '1'}
        errors={errors}
      />
      <Checkbox name="isMobile" form={form}>
        Mobile
      </Checkbox>{' '}
      <Checkbox name="hasTouch" form={form}>
        Touch
      </Checkbox>
      <TextField label="Locale" name="locale" value={form.locale} errors={errors} hint="Optional, e.g. en-US" />
      <TextField
        label="Time zone"
        name="timezoneId"
        value={form.timezoneId}
        errors={errors}
        hint="Optional, e.g. Europe/Paris"
      />
      <TextField
        label="User agent"
        name="userAgent"
        value={form.userAgent}
        errors={errors}
        hint="Optional: the browser's own otherwise"
      />
    </>
  );
}

const on = (flag: boolean) => (flag ? 'on' : '');
const services = (c: Context<WebEnv>) => c.get('services');

export function registerDevicePresetForms(web: Hono<WebEnv>, base: string): void {
  registerListedResource<DevicePresetView>(web, base, {
    path: '/device-presets',
    title: 'Device presets',
    nav: 'device-presets',
    noun: 'device preset',
    empty: 'No device presets: tests run in a desktop viewport.',
    columns: ['Name', 'Viewport', 'Scale', 'Mobile, touch', 'Locale, time zone'],
    cells: (p) => [
      p.name,
      `${p.viewport.width} × ${p.viewport.height}`,
      String(p.deviceScaleFactor),
      `${p.isMobile ? 'mobile' : 'desktop'}${p.hasTouch ? ', touch' : ''}`,
      [p.locale, p.timezoneId].filter(Boolean).join(', '),
    ],
    fields: PresetFields,
    formOf: (p) => ({
      name: p.name,
      width: String(p.viewport.width),
      height: String(p.viewport.height),
      deviceScaleFactor: String(p.deviceScaleFactor),
      isMobile: on(p.isMobile),
      hasTouch: on(p.hasTouch),
      locale: p.locale ?? '',
      timezoneId: p.timezoneId ?? '',
      userAgent: p.userAgent ?? '',
    }),
    list: (c) => listDevicePresets(services(c), c.get('session').projectId),
    require: (c, shortId) => requireDevicePreset(services(c), c.get('session').projectId, shortId),
    create: (c, form) =>
      checkThenWrite(
        CreateDevicePreset,
        bodyOf(form, undefined),
        (input) => createDevicePreset(services(c), c.get('session').projectId, input),
        { at: 'name', fieldOf },
      ),
    update: (c, preset, form) =>
      checkThenWrite(
        UpdateDevicePreset,
        bodyOf(form, null),
        (changes) => updateDevicePreset(services(c), c.get('session').projectId, preset.shortId, changes),
        { at: 'name', fieldOf },
      ),
    remove: (c, preset) => deleteDevicePreset(services(c), c.get('session').projectId, preset.shortId),
  });
}
