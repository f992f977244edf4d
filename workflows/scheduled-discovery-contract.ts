// The scheduledDiscovery workflow's contract (workflows/scheduledDiscovery.ts): what a discovery schedule's Temporal
// Schedule starts, and what a tick ends with.
import type { DiscoveryResult } from './discovery-contract.js';

export interface ScheduledDiscoveryInput {
  projectId: string;
  /** The Temporal Schedule id (`discovery-schedule:<row id>`). */
  scheduleId: string;
}

/** What the tick's discovery found that the previous completed one had not, and who was told. */
export interface DiscoveryNewsReport {
  /** The discovery compared against, null when this is the application's first completed one. */
  previousShortId: string | null;
  newPatterns: number;
  newForms: number;
  sent: string[];
  failed: { target: string; error: string }[];
  skipped: { target: string; reason: string }[];
}

export type ScheduledDiscoveryResult =
  (DiscoveryResult & { discoveryShortId: string; news: DiscoveryNewsReport | null }) | null;
