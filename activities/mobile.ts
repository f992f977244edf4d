import type { ActivityDeps } from './deps.js';
import { GoneError, NoDeviceFarmError, NotFoundError } from '../src/domain/errors.js';
import { cancellationSignal, withHeartbeats } from './heartbeat.js';
import { loadExecutionContext } from '../src/db/queries/execution.js';
import { findBuild } from '../src/db/queries/builds.js';
import type { BuildPlatform } from '../src/builds/file-types.js';
import type { DeviceTestResult } from '../src/devices/device-farm.js';

export interface ExecuteMobileTestInput {
  projectId: string;
  testCaseId: string;
  buildShortId: string;
}

export function createMobileActivities(deps: Pick<ActivityDeps, 'db' | 'blobs' | 'deviceFarm'>) {
  return {
    /** Installs the build on a device of the farm and runs the test there; ERROR when there is no farm. */
    async executeMobileTest(input: ExecuteMobileTestInput): Promise<DeviceTestResult> {
      const build = await findBuild(deps.db, input.projectId, input.buildShortId);
      if (!build) throw new GoneError(`build ${input.buildShortId} no longer exists`);
      const farm = deps.deviceFarm;
      if (!farm) {
        throw new NoDeviceFarmError(
          `no device farm is configured, so the ${describe(build.platform)} build "${build.file_name}" (${build.short_id}) could not be installed and this test did not run`,
        );
      }
      const ctx = await loadExecutionContext(deps.db, input.projectId, input.testCaseId);
      if (!ctx) throw new NotFoundError(`test case ${input.testCaseId}`);
      const downloadUrl = await deps.blobs.presignGet(build.blob_key, 3600);
      return withHeartbeats(() =>
        farm.runTest({
          build: { shortId: build.short_id, platform: build.platform, fileName: build.file_name, downloadUrl },
          testCase: {
            id: ctx.testCase.id,
            name: ctx.testCase.name,
            goal: ctx.testCase.goal,
            expectedResult: ctx.testCase.expectedResult,
            steps: ctx.testCase.steps,
          },
          signal: cancellationSignal(),
        }),
      );
    },
  };
}

const describe = (platform: BuildPlatform) => (platform === 'ios' ? 'iOS' : 'Android');
