import { z } from '@hono/zod-openapi';
import { name, shortId } from './common.js';

// Request and response shapes of the device preset routes (src/api/routes/device-presets.ts); the dashboard's form validates with them too.

const viewportSide = z.number().int().min(200).max(4000);

export const Viewport = z
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
  .openapi({
    example: 'en-US',
    pattern: localePattern,
    description: 'BCP 47 language tag: language, optional script, optional region (`en-US`, `zh-Hant-TW`, `es-419`)',
  });

// The document lists this runtime's IANA zone names (what Intl resolves zones to, plus UTC) as the pattern;
// the server asks Intl itself, which also takes the aliases (Asia/Kolkata, US/Pacific) and any letter case.
const timeZoneNames = ['UTC', ...Intl.supportedValuesOf('timeZone')];
const timezoneId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine(
    (value) => isValid(() => new Intl.DateTimeFormat('en-US', { timeZone: value })),
    'must be an IANA time zone such as Europe/Paris',
  )
  .openapi('IanaTimeZone', {
    example: 'Europe/Paris',
    pattern: `^(${timeZoneNames.map((zone) => zone.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`,
    description:
      "An IANA time zone name such as `Europe/Paris`, checked with the server's Intl time zone data (aliases such as `Asia/Kolkata` are accepted too)",
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

export const CreateDevicePreset = z
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

export const UpdateDevicePreset = z
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
