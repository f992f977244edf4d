import { inject } from 'vitest';

/**
 * Node's arguments for `proctor <args>` as the production image runs it: the CLI built once for the suite
 * (scripts/build.ts), not the sources through tsx, which cost each process 2 to 3 s more CPU to load.
 */
export const proctorArgs = (...args: string[]): string[] => ['--enable-source-maps', inject('proctorCli'), ...args];
