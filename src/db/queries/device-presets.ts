import type { DB } from '../database.js';
import type { DevicePreset } from '../schema.js';
import { newId, newShortId } from '../../ids.js';
import { projectViews, updateProjectRow } from './project-rows.js';

export interface DevicePresetInput {
  name: string;
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  userAgent: string | null;
  locale: string | null;
  timezoneId: string | null;
}

export interface DevicePresetView extends DevicePresetInput {
  shortId: string;
  createdAt: string;
}

export function toDevicePresetView(row: DevicePreset): DevicePresetView {
  return {
    shortId: row.short_id,
    name: row.name,
    viewport: { width: row.viewport_width, height: row.viewport_height },
    // `real` comes back as a number from both drivers; Number() guards a driver that returns text.
    deviceScaleFactor: Number(row.device_scale_factor),
    isMobile: row.is_mobile,
    hasTouch: row.has_touch,
    userAgent: row.user_agent,
    locale: row.locale,
    timezoneId: row.timezone_id,
    createdAt: row.created_at.toISOString(),
  };
}

const views = projectViews('device_presets', toDevicePresetView, 'created_at');

/** The project's device presets, oldest first. */
export const listDevicePresets = views.list;
export const getDevicePreset = views.get;

export async function createDevicePreset(
  db: DB,
  projectId: string,
  input: DevicePresetInput,
): Promise<DevicePresetView> {
  const shortId = newShortId('devicePreset', input.name);
  await db
    .insertInto('device_presets')
    .values({
      id: newId(),
      short_id: shortId,
      project_id: projectId,
      name: input.name,
      viewport_width: input.viewport.width,
      viewport_height: input.viewport.height,
      device_scale_factor: input.deviceScaleFactor,
      is_mobile: input.isMobile,
      has_touch: input.hasTouch,
      user_agent: input.userAgent,
      locale: input.locale,
      timezone_id: input.timezoneId,
    })
    .execute();
  const { id: _id, ...view } = (await getDevicePreset(db, projectId, shortId))!;
  return view;
}

export async function updateDevicePreset(db: DB, id: string, patch: Partial<DevicePresetInput>): Promise<void> {
  await updateProjectRow(db, 'device_presets', id, {
    name: patch.name,
    viewport_width: patch.viewport?.width,
    viewport_height: patch.viewport?.height,
    device_scale_factor: patch.deviceScaleFactor,
    is_mobile: patch.isMobile,
    has_touch: patch.hasTouch,
    user_agent: patch.userAgent,
    locale: patch.locale,
    timezone_id: patch.timezoneId,
  });
}

/**
 * Applications that used the preset as their default fall back to none (the built-in desktop viewport):
 * that column has no foreign key. Test plan parameters fall back to the project default through theirs.
 */
export async function deleteDevicePreset(db: DB, preset: { id: string; projectId: string }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('applications')
      .set({ default_device_preset_id: null })
      .where('project_id', '=', preset.projectId)
      .where('default_device_preset_id', '=', preset.id)
      .execute();
    await trx.deleteFrom('device_presets').where('id', '=', preset.id).execute();
  });
}

export async function findDevicePresetRow(db: DB, id: string) {
  return db.selectFrom('device_presets').selectAll().where('id', '=', id).executeTakeFirst();
}
