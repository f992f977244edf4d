import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, name, shortId } from '../../schemas/common.js';
import { createDevicePreset, deleteDevicePreset, listDevicePresets, requireDevicePreset, updateDevicePreset } from '../../services/device-presets.js';

const viewportSide = z.number().int().min(200).max(4000);

const Viewport = z
  .object({ width: viewportSide.openapi({ example: 390 }), height: viewportSide.openapi({ example: 844 }) })
  .openapi('DevicePresetViewport', { description: 'CSS pixels, 200 to 4000 each' });

// Checked here so a bad value is a 400 now rather than a browser that fails to launch during a run. The
// pattern (language, optional script, optional region) is what a browser locale needs and what the document states.
const localePattern = '^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?$';
const locale = z
  .string()
  .trim()
  .min(1)
  .max(35)
  .regex(new RegExp(localePattern), 'must be a BCP 47 locale such as en-US')
  .refine((value) => isValid(() => Intl.getCanonicalLocales(value)), 'must be a BCP 47 locale such as en-US')
  .openapi({ example: 'en-US', pattern: localePattern, description: 'BCP 47 language tag: language, optional script, optional region (`en-US`, `zh-Hant-TW`, `es-419`)' });

// The document lists this runtime's IANA zone names (what Intl resolves zones to, plus UTC) as the pattern;
// the server asks Intl itself, which also takes the aliases (Asia/Kolkata, US/Pacific) and any letter case.
const timeZoneNames = ['UTC', ...Intl.supportedValuesOf('timeZone')];
const timezoneId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine((value) => isValid(() => new Intl.DateTimeFormat('en-US', { timeZone: value })), 'must be an IANA time zone such as Europe/Paris')
  .openapi('IanaTimeZone', {
    example: 'Europe/Paris',
    pattern: `^(${timeZoneNames.map((zone) => zone.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`,
    description: "An IANA time zone name such as `Europe/Paris`, checked with the server's Intl time zone data (aliases such as `Asia/Kolkata` are accepted too)",
  });

const userAgent = z.string().trim().min(1).max(1000);

function isValid(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

export const DevicePresetSchema = z
  .object({
    shortId: shortId('devicePreset'),
    name: z.string().openapi({ example: 'iPhone 13' }),
    viewport: Viewport,
    deviceScaleFactor: z.number().openapi({ example: 3 }),
    isMobile: z.boolean(),
    hasTouch: z.boolean(),
    userAgent: z.string().nullable().openapi({ description: "null: the browser's own user agent" }),
    locale: z.string().nullable().openapi({ example: 'en-US' }),
    timezoneId: z.string().nullable().openapi({ example: 'Europe/Paris' }),
    createdAt: z.string().datetime(),
  })
  .openapi('DevicePreset');

const CreateDevicePreset = z
  .object({
    name: name(80).openapi({ example: 'iPhone 13' }),
    viewport: Viewport,
    deviceScaleFactor: z.number().min(0.5).max(4).default(1).openapi({ example: 3 }),
    isMobile: z.boolean().default(false),
    hasTouch: z.boolean().default(false),
    userAgent: userAgent.optional(),
    locale: locale.optional(),
    timezoneId: timezoneId.optional(),
  })
  .openapi('CreateDevicePreset');

const UpdateDevicePreset = z
  .object({
    name: name(80).optional(),
    viewport: Viewport.optional(),
    deviceScaleFactor: z.number().min(0.5).max(4).optional(),
    isMobile: z.boolean().optional(),
    hasTouch: z.boolean().optional(),
    userAgent: userAgent.nullable().optional().openapi({ description: 'null clears it' }),
    locale: locale.nullable().optional().openapi({ description: 'null clears it' }),
    timezoneId: timezoneId.nullable().optional().openapi({ description: 'null clears it' }),
  })
  .openapi('UpdateDevicePreset');

const Params = z.object({
  devicePresetShortId: shortId('devicePreset').openapi({ param: { name: 'devicePresetShortId', in: 'path' } }),
});

const tags = ['Management'];
const base = '/v1/device-presets';

const routes = {
  list: createRoute({
    method: 'get', path: base, tags, security: bearerSecurity,
    summary: 'List device presets',
    responses: { 200: json(z.object({ devicePresets: z.array(DevicePresetSchema) }), 'Device presets of the project'), ...errorResponses },
  }),
  create: createRoute({
    method: 'post', path: base, tags, security: bearerSecurity,
    summary: 'Create a device preset (viewport, scale, touch, user agent, locale, time zone)',
    request: { body: jsonBody(CreateDevicePreset) },
    responses: { 201: json(DevicePresetSchema, 'Created'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get', path: `${base}/{devicePresetShortId}`, tags, security: bearerSecurity,
    summary: 'Get a device preset',
    request: { params: Params },
    responses: { 200: json(DevicePresetSchema, 'The device preset'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch', path: `${base}/{devicePresetShortId}`, tags, security: bearerSecurity,
    summary: 'Update a device preset',
    request: { params: Params, body: jsonBody(UpdateDevicePreset) },
    responses: { 200: json(DevicePresetSchema, 'Updated'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete', path: `${base}/{devicePresetShortId}`, tags, security: bearerSecurity,
    summary: 'Delete a device preset',
    description:
      'Applications that used it as their default device preset fall back to none (the built-in desktop viewport); ' +
      'test plans that named it fall back to the application default.',
    request: { params: Params },
    responses: { 200: json(Deleted, 'Deleted'), ...errorResponses },
  }),
};

export function registerDevicePresets(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const { db } = c.get('deps');
    return c.json({ devicePresets: await listDevicePresets(db, c.get('caller').projectId) }, 200);
  });

  app.openapi(routes.create, async (c) => {
    const { db } = c.get('deps');
    const created = await createDevicePreset(db, c.get('caller').projectId, c.req.valid('json'));
    return c.json(created, 201);
  });

  app.openapi(routes.get, async (c) => {
    const { db } = c.get('deps');
    const { id: _id, ...view } = await requireDevicePreset(db, c.get('caller').projectId, c.req.valid('param').devicePresetShortId);
    return c.json(view, 200);
  });

  app.openapi(routes.update, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const { id: _id, ...view } = await updateDevicePreset(db, projectId, c.req.valid('param').devicePresetShortId, c.req.valid('json'));
    return c.json(view, 200);
  });

  app.openapi(routes.remove, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    await deleteDevicePreset(db, projectId, c.req.valid('param').devicePresetShortId);
    return c.json({ deleted: true as const }, 200);
  });
}
