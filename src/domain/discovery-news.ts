// The news of a scheduled discovery (issue 34, item 5): the page patterns and forms it found that the application's
// previous completed discovery did not have, and where a schedule sends them. Pure: read from the diff of two maps.
import type { DiscoveryDiff } from './discovery-map.js';

/** Where a discovery schedule sends its news; the webhook URL is a secret (only its host is ever shown). */
export interface DiscoveryNotify {
  emails: string[];
  slack: { webhookUrl: string; channel: string | null } | null;
}

export const noNotify: DiscoveryNotify = { emails: [], slack: null };

/** The stored `notify` column as the schedule reads it; anything unreadable there notifies nobody. */
export function readNotify(value: unknown): DiscoveryNotify {
  const v = (typeof value === 'string' ? safeJson(value) : value) as Partial<DiscoveryNotify> | null;
  if (!v || typeof v !== 'object') return noNotify;
  const emails = Array.isArray(v.emails) ? v.emails.filter((e): e is string => typeof e === 'string') : [];
  const slack =
    v.slack && typeof v.slack.webhookUrl === 'string'
      ? { webhookUrl: v.slack.webhookUrl, channel: typeof v.slack.channel === 'string' ? v.slack.channel : null }
      : null;
  return { emails, slack };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export interface DiscoveryNews {
  /** Page patterns the previous discovery did not have. */
  patterns: string[];
  /** Forms it did not have: on a new pattern, or new on a known one (a form whose fields changed is not new). */
  forms: { pattern: string; name: string }[];
}

export function newsOf(diff: DiscoveryDiff): DiscoveryNews {
  return {
    patterns: [...diff.patterns.added],
    forms: diff.forms.added.map(({ pattern, form }) => ({ pattern, name: form.name || '(unnamed form)' })),
  };
}

export const hasNews = (news: DiscoveryNews): boolean => news.patterns.length > 0 || news.forms.length > 0;
