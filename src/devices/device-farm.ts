import type { Step } from '../domain/steps.js';
import type { BuildPlatform } from '../builds/file-types.js';

// The one boundary to whatever runs mobile builds (an emulator/simulator farm, a cloud device service).
// Proctor ships no implementation yet: with none configured a mobile test ends ERROR saying so, never PASSED.

export interface DeviceTestRequest {
  build: {
    shortId: string;
    platform: BuildPlatform;
    fileName: string;
    /** Presigned, expiring GET of the build file for the farm to install. */
    downloadUrl: string;
  };
  testCase: { id: string; name: string; goal: string | null; expectedResult: string | null; steps: Step[] | null };
  /** Fires when the run is cancelled; the farm must stop and release the device. */
  signal?: AbortSignal;
}

export interface DeviceTestResult {
  status: 'PASSED' | 'FAILED';
  error?: string;
  durationMs: number;
}

export interface DeviceFarm {
  /** For logs and error messages, e.g. "local Android emulator pool". */
  readonly name: string;
  runTest(request: DeviceTestRequest): Promise<DeviceTestResult>;
}
