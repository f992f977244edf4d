#!/usr/bin/env node
// `proctor` on PATH (npm link / npx): runs the TypeScript CLI through tsx's loader, no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
