import type { Migration } from 'kysely';
import * as m0001 from './2026_11_21_0001_foundation.js';

// Explicit list (no directory scan) so bundlers and tsx see every migration; order is the key order.
export const migrations: Record<string, Migration> = {
  '2026_11_21_0001_foundation': m0001,
};
