// The workflow bundle's entry: every workflow the worker can run.
export { systemCheck } from './systemCheck.js';
export { burnIn } from './burnIn.js';
