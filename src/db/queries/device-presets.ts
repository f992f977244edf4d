import type { DB } from '../database.js';
import type { DevicePreset } from '../schema.js';
import { newId, newShortId } from '../../ids.js';

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

export async function listDevicePresets(db: DB, projectId: string): Promise<DevicePresetView[]> {
  const rows = await db
    .selectFrom('device_presets')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toDevicePresetView);
}

export async function getDevicePreset(
  db: DB,
  projectId: string,
  shortId: string,
): Promise<(DevicePresetView & { id: string }) | undefined> {
  const row = await db
    .selectFrom('device_presets')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('short_id', '=', shortId)
    .executeTakeFirst();
  return row && { id: row.id, ...toDevicePresetView(row) };
}

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
  const values = {
    ...(patch.name !== undefined && { name: patch.name }),
    ...(patch.viewport !== undefined && {
      viewport_width: patch.viewport.width,
      viewport_height: patch.viewport.height,
    }),
    ...(patch.deviceScaleFactor !== undefined && { device_scale_factor: patch.deviceScaleFactor }),
    ...(patch.isMobile !== undefined && { is_mobile: patch.isMobile }),
    ...(patch.hasTouch !== undefined && { has_touch: patch.hasTouch }),
    ...(patch.userAgent !== undefined && { user_agent: patch.userAgent }),
    ...(patch.locale !== undefined && { locale: patch.locale }),
    ...(patch.timezoneId !== undefined && { timezone_id: patch.timezoneId }),
  };
  if (Object.keys(values).length === 0) return;
  await db.updateTable('device_presets').set(values).where('id', '=', id).execute();
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
