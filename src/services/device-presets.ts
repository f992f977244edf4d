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
import { NotFoundError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';

export type { DevicePresetInput, DevicePresetView };

export const listDevicePresets = ({ db }: ServiceContext, projectId: string): Promise<DevicePresetView[]> =>
  selectDevicePresets(db, projectId);

/** The device preset of the caller's project, or NotFoundError (also when it belongs to another project). */
export async function requireDevicePreset(
  { db }: ServiceContext,
  projectId: string,
  devicePresetShortId: string,
): Promise<DevicePresetView & { id: string }> {
  const preset = await getDevicePreset(db, projectId, devicePresetShortId);
  if (!preset) throw new NotFoundError('Device preset');
  return preset;
}

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
