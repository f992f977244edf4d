// Device presets as business operations: the project's presets, each found only in the caller's project.
import {
  createDevicePreset as insertDevicePreset,
  deleteDevicePreset as deleteDevicePresetRows,
  getDevicePreset,
  listDevicePresets as selectDevicePresets,
  updateDevicePreset as updateDevicePresetRow,
  type DevicePresetInput,
  type DevicePresetView,
} from '../db/queries/device-presets.js';
import type { ServiceContext } from './context.js';
import { projectResource } from './project-resources.js';

export type { DevicePresetInput, DevicePresetView };

const resource = projectResource('Device preset', { list: selectDevicePresets, get: getDevicePreset });

export const listDevicePresets = resource.list;
/** The device preset of the caller's project, or NotFoundError (also when it belongs to another project). */
export const requireDevicePreset = resource.require;

/** A new preset; an optional setting left out is stored as none. */
export function createDevicePreset(
  { db }: ServiceContext,
  projectId: string,
  input: Omit<DevicePresetInput, 'userAgent' | 'locale' | 'timezoneId'> &
    Partial<Pick<DevicePresetInput, 'userAgent' | 'locale' | 'timezoneId'>>,
): Promise<DevicePresetView> {
  return insertDevicePreset(db, projectId, {
    ...input,
    userAgent: input.userAgent ?? null,
    locale: input.locale ?? null,
    timezoneId: input.timezoneId ?? null,
  });
}

export async function updateDevicePreset(
  { db }: ServiceContext,
  projectId: string,
  devicePresetShortId: string,
  patch: Partial<DevicePresetInput>,
): Promise<DevicePresetView & { id: string }> {
  const preset = await requireDevicePreset({ db }, projectId, devicePresetShortId);
  await updateDevicePresetRow(db, preset.id, patch);
  return requireDevicePreset({ db }, projectId, preset.shortId);
}

export async function deleteDevicePreset(
  { db }: ServiceContext,
  projectId: string,
  devicePresetShortId: string,
): Promise<void> {
  const preset = await requireDevicePreset({ db }, projectId, devicePresetShortId);
  await deleteDevicePresetRows(db, { id: preset.id, projectId });
}
