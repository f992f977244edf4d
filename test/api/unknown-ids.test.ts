import { describe, it } from 'vitest';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { expectUnknownAndMalformedIds } from '../support/unknown-ids.js';

// Every resource's item routes (GET, PATCH, DELETE) answer 404 for an id that is well formed but unknown, and 400
// naming the path parameter for a malformed one: one row per resource.
const resources = [
  {
    path: '/v1/configs',
    unknown: ['cfg_doesnotexist'],
    malformed: 'config_x',
    message: 'Config not found',
    param: 'configShortId',
    patch: { value: 'x' },
  },
  {
    path: '/v1/device-presets',
    unknown: ['preset_doesnotexist0'],
    malformed: 'app_notapreset',
    message: 'Device preset not found',
    param: 'devicePresetShortId',
    patch: { name: 'X' },
  },
  {
    path: '/v1/scenarios',
    unknown: ['scenario_doesnotexist'],
    malformed: 'cfg_x',
    message: 'Scenario not found',
    param: 'scenarioShortId',
    patch: { name: 'X' },
  },
  {
    path: '/v1/test-plans',
    unknown: ['pln_doesnotexist', 'pln-smoke_doesnotexist'],
    malformed: 'plan_x',
    message: 'Test plan not found',
    param: 'testPlanShortId',
    patch: { name: 'X' },
  },
];

describe.each(databaseKinds)('unknown and malformed ids (%s)', (kind) => {
  const ctx = useApiContext(kind);

  it.each(resources)('$path answers 404 for unknown ids and 400 for malformed ones', async (resource) => {
    await expectUnknownAndMalformedIds(ctx, resource);
  });
});
