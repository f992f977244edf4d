import { describe, expect, it } from 'vitest';
import { applicationSettings, overrideProblems } from '../../src/domain/precedence.js';

const shop = { applicationId: 'shop', environmentId: 'env-shop-prod', devicePresetId: 'preset-desktop' };
const admin = { applicationId: 'admin', environmentId: null, devicePresetId: null };

describe('environment precedence: project < plan < run', () => {
  it('uses the project settings when neither the plan nor the run names anything', () => {
    const settings = applicationSettings([shop], [], []);
    expect(settings.get('shop')).toEqual({
      environment: { from: 'project', environmentId: 'env-shop-prod' },
      devicePresetId: 'preset-desktop',
    });
  });

  it("lets the plan's parameters beat the project settings, keeping the project's device when the plan names none", () => {
    const settings = applicationSettings(
      [shop],
      [{ applicationId: 'shop', environmentId: 'env-shop-staging', devicePresetId: null }],
      [],
    );
    expect(settings.get('shop')).toEqual({
      environment: { from: 'plan', environmentId: 'env-shop-staging' },
      devicePresetId: 'preset-desktop',
    });
    const withDevice = applicationSettings(
      [shop],
      [{ applicationId: 'shop', environmentId: 'env-shop-staging', devicePresetId: 'preset-phone' }],
      [],
    );
    expect(withDevice.get('shop')?.devicePresetId).toBe('preset-phone');
  });

  it("lets the run's override beat the plan, field by field", () => {
    const plan = [{ applicationId: 'shop', environmentId: 'env-shop-staging', devicePresetId: 'preset-phone' }];
    const url = { url: 'https://pr-12.shop.test' };
    const both = applicationSettings([shop], plan, [
      { applicationId: 'shop', environment: url, devicePresetId: 'preset-tablet' },
    ]);
    expect(both.get('shop')).toEqual({
      environment: { from: 'run', environment: url },
      devicePresetId: 'preset-tablet',
    });
    // An override naming only a device keeps the plan's environment.
    const deviceOnly = applicationSettings([shop], plan, [{ applicationId: 'shop', devicePresetId: 'preset-tablet' }]);
    expect(deviceOnly.get('shop')).toEqual({
      environment: { from: 'plan', environmentId: 'env-shop-staging' },
      devicePresetId: 'preset-tablet',
    });
  });

  it('reports an application with no environment anywhere, and settles each application on its own', () => {
    const settings = applicationSettings(
      [shop, admin],
      [],
      [{ applicationId: 'shop', environment: { shortId: 'env-pr' } }],
    );
    expect(settings.get('admin')).toEqual({ environment: { from: 'none' }, devicePresetId: null });
    expect(settings.get('shop')?.environment).toEqual({ from: 'run', environment: { shortId: 'env-pr' } });
  });

  it('finds overrides listed twice or for an application with no test case in the run', () => {
    expect(
      overrideProblems(
        [{ applicationId: 'shop' }, { applicationId: 'shop' }, { applicationId: 'blog' }],
        ['shop', 'admin'],
      ),
    ).toEqual({
      twice: ['shop'],
      notInRun: ['blog'],
    });
    expect(overrideProblems([{ applicationId: 'shop' }], ['shop'])).toEqual({ twice: [], notInRun: [] });
  });
});
