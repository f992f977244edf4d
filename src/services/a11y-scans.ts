// The project's memory of documents it has scanned: a document met again (the same markup and styles, by digest)
// gets the findings of its first scan instead of a new one. Burn-ins scan the pages first, so the replays that
// follow, on any worker, scan only what changed since (see bench/README.md for what a scan costs).
import { findA11yScan, saveA11yScan } from '../db/queries/a11y-scans.js';
import type { AxeFinding, ScanCache } from '../browser/quality/axe-scan.js';
import type { ServiceContext } from './context.js';

/** A week: a document unchanged for longer is scanned again, so a rule that changes meaning is not missed forever. */
export const a11yScanTtlMs = 7 * 24 * 3_600_000;

export function projectScanCache({ db }: ServiceContext, projectId: string, now: () => number = Date.now): ScanCache {
  return {
    async get(key) {
      const findings = await findA11yScan(db, projectId, key, new Date(now() - a11yScanTtlMs));
      return Array.isArray(findings) ? (findings as AxeFinding[]) : undefined;
    },
    async set(key, findings) {
      await saveA11yScan(db, projectId, key, findings, new Date(now() - a11yScanTtlMs));
    },
  };
}
