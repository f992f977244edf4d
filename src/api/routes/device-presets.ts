import type { OpenApiApp } from '../openapi.js';
import { projectCrud, resourceRoutes } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import { pathParams, shortId } from '../../schemas/common.js';
import { CreateDevicePreset, DevicePresetSchema, UpdateDevicePreset } from '../../schemas/device-presets.js';
import {
  createDevicePreset,
  deleteDevicePreset,
  listDevicePresets,
  requireDevicePreset,
  updateDevicePreset,
} from '../../services/device-presets.js';

const routes = resourceRoutes({
  path: '/v1/device-presets/{devicePresetShortId}',
  tags: ['Management'],
  noun: ['a device preset', 'device presets'],
  schema: DevicePresetSchema,
  params: pathParams({ devicePresetShortId: shortId('devicePreset') }),
  listKey: 'devicePresets',
  create: {
    body: CreateDevicePreset,
    summary: 'Create a device preset (viewport, scale, touch, user agent, locale, time zone)',
  },
  update: { body: UpdateDevicePreset },
  remove: {
    description:
      'Applications that used it as their default device preset fall back to none (the built-in desktop viewport); ' +
      'test plans that named it fall back to the application default.',
  },
});

export function registerDevicePresets(app: OpenApiApp): void {
  serveResource(
    app,
    routes,
    projectCrud('devicePresets', 'devicePresetShortId', {
      list: listDevicePresets,
      create: createDevicePreset,
      get: requireDevicePreset,
      update: updateDevicePreset,
      remove: deleteDevicePreset,
    }),
  );
}
