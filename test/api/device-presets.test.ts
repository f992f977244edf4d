import { describe, expect, it } from 'vitest';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { expectBadRequests } from '../support/bad-requests.js';
import { expectHiddenFromCaller } from '../support/unknown-ids.js';

const iphone = {
  name: 'iPhone 13',
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X)',
  locale: 'en-US',
  timezoneId: 'Europe/Paris',
};

describe.each(databaseKinds)('device presets (%s)', (kind) => {
  const ctx = useApiContext(kind);

  const names = async () =>
    (await ctx.call('GET', '/v1/device-presets')).body.devicePresets.map((p: { name: string }) => p.name);

  it('creates, lists, gets, updates and deletes a preset', async () => {
    const created = await ctx.call('POST', '/v1/device-presets', iphone);
    expect(created.status).toBe(201);
    expect(created.body.shortId).toMatch(/^preset(-.+_.+|_.+)$/);
    expect(created.body).toMatchObject(iphone);
    expect(new Date(created.body.createdAt).toString()).not.toBe('Invalid Date');

    const list = await ctx.call('GET', '/v1/device-presets');
    expect(list.status).toBe(200);
    expect(list.body.devicePresets).toEqual([created.body]);

    const got = await ctx.call('GET', `/v1/device-presets/${created.body.shortId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const updated = await ctx.call('PATCH', `/v1/device-presets/${created.body.shortId}`, {
      name: 'iPhone 13 landscape',
      viewport: { width: 844, height: 390 },
      deviceScaleFactor: 2.5,
      userAgent: null,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      shortId: created.body.shortId,
      name: 'iPhone 13 landscape',
      viewport: { width: 844, height: 390 },
      deviceScaleFactor: 2.5,
      isMobile: true,
      userAgent: null,
      locale: 'en-US',
      timezoneId: 'Europe/Paris',
    });
    expect((await ctx.call('GET', `/v1/device-presets/${created.body.shortId}`)).body).toEqual(updated.body);

    const deleted = await ctx.call('DELETE', `/v1/device-presets/${created.body.shortId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true });
    const gone = await ctx.call('GET', `/v1/device-presets/${created.body.shortId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe('Device preset not found');
    expect(await names()).not.toContain('iPhone 13 landscape');
  });

  it('applies defaults: scale 1, not mobile, no touch, browser user agent', async () => {
    const created = await ctx.call('POST', '/v1/device-presets', {
      name: 'Laptop',
      viewport: { width: 1440, height: 900 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Laptop',
      viewport: { width: 1440, height: 900 },
      deviceScaleFactor: 1,
      isMobile: false,
      hasTouch: false,
      userAgent: null,
      locale: null,
      timezoneId: null,
    });
  });

  it('validates input with a message naming the field, and writes nothing', async () => {
    const before = await names();
    const cases: [unknown, RegExp][] = [
      [{ viewport: { width: 390, height: 844 } }, /name/],
      [{ name: 'Tiny', viewport: { width: 199, height: 844 } }, /viewport\.width/],
      [{ name: 'Huge', viewport: { width: 390, height: 4001 } }, /viewport\.height/],
      [{ name: 'Fraction', viewport: { width: 390.5, height: 844 } }, /viewport\.width/],
      [{ name: 'No height', viewport: { width: 390 } }, /viewport\.height/],
      [{ name: 'Scale', viewport: { width: 390, height: 844 }, deviceScaleFactor: 0.4 }, /deviceScaleFactor/],
      [{ name: 'Scale', viewport: { width: 390, height: 844 }, deviceScaleFactor: 4.5 }, /deviceScaleFactor/],
      [{ name: 'Locale', viewport: { width: 390, height: 844 }, locale: 'not a locale!' }, /locale/],
      [{ name: 'Zone', viewport: { width: 390, height: 844 }, timezoneId: 'Mars/Olympus' }, /timezoneId/],
      [{ name: 'Mobile', viewport: { width: 390, height: 844 }, isMobile: 'yes' }, /isMobile/],
    ];
    await expectBadRequests((body) => ctx.call('POST', '/v1/device-presets', body), cases);
    expect(await names()).toEqual(before);

    const preset = (
      await ctx.call('POST', '/v1/device-presets', { name: 'Tablet', viewport: { width: 820, height: 1180 } })
    ).body;
    const bad = await ctx.call('PATCH', `/v1/device-presets/${preset.shortId}`, {
      name: 'Renamed',
      viewport: { width: 100, height: 1180 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/viewport\.width/);
    const unchanged = await ctx.call('GET', `/v1/device-presets/${preset.shortId}`);
    expect(unchanged.body).toMatchObject({ name: 'Tablet', viewport: { width: 820, height: 1180 } });
  });

  it("resets an application's default device preset when the preset is deleted", async () => {
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Mobile web' })).body;
    const preset = (await ctx.call('POST', '/v1/device-presets', { ...iphone, name: 'Pixel' })).body;
    const set = await ctx.call('PATCH', `/v1/applications/${app.shortId}`, {
      defaultDevicePresetShortId: preset.shortId,
    });
    expect(set.body.defaultDevicePresetShortId).toBe(preset.shortId);

    expect((await ctx.call('DELETE', `/v1/device-presets/${preset.shortId}`)).status).toBe(200);
    const after = await ctx.call('GET', `/v1/applications/${app.shortId}`);
    expect(after.status).toBe(200);
    expect(after.body.defaultDevicePresetShortId).toBeNull();
    const row = await ctx.db
      .selectFrom('applications')
      .select('default_device_preset_id')
      .where('short_id', '=', app.shortId)
      .executeTakeFirstOrThrow();
    expect(row.default_device_preset_id).toBeNull();
  });

  it("hides another project's presets (404 on every route) and lists only the caller's", async () => {
    const theirs = (await ctx.call('POST', '/v1/device-presets', { ...iphone, name: 'Their phone' }, ctx.other.token))
      .body;
    const still = await expectHiddenFromCaller(ctx, {
      path: '/v1/device-presets',
      shortId: theirs.shortId,
      message: 'Device preset not found',
      patches: [{ name: 'Mine now' }],
    });
    expect(await names()).not.toContain('Their phone');
    expect(still).toEqual(theirs);
  });
});
