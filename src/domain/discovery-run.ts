// A discovery as a durable process (issue 34): its statuses, why it stopped, and the shape of a suggestion's
// coverage. Pure: the workflow, its activities, the queries and the API share these.
import type { DiscoveryBudget } from './discovery.js';

export const discoveryStatuses = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type DiscoveryStatus = (typeof discoveryStatuses)[number];

export const endedDiscoveryStatuses: readonly DiscoveryStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** Why a completed discovery stopped: it ran out of pages to visit, or one of its budget's limits was reached. */
export type DiscoveryStopReason = 'explored' | 'pages' | 'actions' | 'minutes';

export const suggestionStatuses = ['PROPOSED', 'ACCEPTED', 'REJECTED'] as const;
export type SuggestionStatus = (typeof suggestionStatuses)[number];

/** What a suggested test would cover: page patterns, and forms by `formId` (`<key>@<action>`). */
export interface SuggestionCovers {
  patterns: string[];
  forms: string[];
}

/** Most URLs of one page pattern a discovery visits: 1,000 order pages cost two visits, not a thousand. */
export const defaultPerPattern = 2;

/** The hard ceilings of a budget the API accepts (a discovery is not a crawler of the whole web). */
export const budgetLimits: DiscoveryBudget = { pages: 5_000, actions: 50_000, minutes: 24 * 60 };

export const maxIntentLength = 500;
