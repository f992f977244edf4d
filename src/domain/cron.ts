// Cron validation for plan schedules, pure: the schedule route's request schema checks an expression with it before Temporal sees one.
// Mirrors what Temporal's cron parser accepts, minus what would surprise: sub-minute schedules (a plan runs at
// most once a minute), `#` (Temporal reads the rest as a comment, so `MON#2` silently means every Monday) and
// two-letter day names. Temporal still parses the expression at create; what it refuses is mapped to a 400 too.

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const months = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const days = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const fields = {
  second: { name: 'second', min: 0, max: 59 },
  minute: { name: 'minute', min: 0, max: 59 },
  hour: { name: 'hour', min: 0, max: 23 },
  dayOfMonth: { name: 'day of month', min: 1, max: 31 },
  month: { name: 'month', min: 1, max: 12, names: months },
  dayOfWeek: { name: 'day of week', min: 0, max: 7, names: days },
  year: { name: 'year', min: 2000, max: 2100 },
} satisfies Record<string, CronField>;

const layouts: Record<number, CronField[]> = {
  5: [fields.minute, fields.hour, fields.dayOfMonth, fields.month, fields.dayOfWeek],
  6: [fields.minute, fields.hour, fields.dayOfMonth, fields.month, fields.dayOfWeek, fields.year],
  7: [fields.second, fields.minute, fields.hour, fields.dayOfMonth, fields.month, fields.dayOfWeek, fields.year],
};

const shorthands = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/**
 * Why the expression is not a schedule Proctor accepts, or undefined when it is. Accepted: standard 5-field cron
 * (`minute hour day-of-month month day-of-week`, with `*`, lists, ranges, steps, month and day names), Temporal's
 * 6-field (plus year) and 7-field (second first, then year; the second a single value) forms, a `CRON_TZ=` or
 * `TZ=` prefix, `@hourly`/`@daily`/`@weekly`/`@monthly`/`@yearly` and `@every <duration>[/<offset>]` (at least 1m).
 */
export function cronProblem(expression: string): string | undefined {
  let rest = expression.trim();
  if (rest === '') return 'is empty';
  const zone = /^(?:CRON_TZ|TZ)=(\S*)\s*(.*)$/.exec(rest);
  if (zone) {
    if (!isTimeZone(zone[1]!)) return `unknown time zone "${zone[1]}" (use an IANA name such as Europe/Paris)`;
    rest = zone[2]!.trim();
  }
  if (rest.includes('#')) return '"#" is not supported (no nth-weekday forms; a note belongs in the description)';

  if (rest.startsWith('@')) {
    if (shorthands.has(rest)) return undefined;
    const every = /^@every\s+([^\s/]+)(?:\/(\S+))?$/.exec(rest);
    if (!every) return `unknown form "${rest}" (use @hourly, @daily, @weekly, @monthly, @yearly or @every <duration>)`;
    const interval = durationMs(every[1]!);
    if (interval === undefined) return `"${every[1]}" is not a duration such as 30m, 2h or 1d`;
    if (interval < 60_000) return 'a plan runs at most once a minute: @every needs at least 1m';
    if (every[2] === undefined) return undefined;
    const offset = durationMs(every[2]);
    if (offset === undefined) return `"${every[2]}" is not a duration such as 15m`;
    if (offset > interval) return `the offset ${every[2]} is longer than the interval ${every[1]}`;
    return undefined;
  }

  const parts = rest.split(/\s+/);
  const layout = layouts[parts.length];
  if (!layout) return `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  if (parts.length === 7 && !/^\d+$/.test(parts[0]!))
    return 'a plan runs at most once a minute: the second field must be a single number';
  for (const [i, field] of layout.entries()) {
    const problem = fieldProblem(parts[i]!, field);
    if (problem) return `${field.name} "${parts[i]}": ${problem}`;
  }
  return undefined;
}

function fieldProblem(text: string, field: CronField): string | undefined {
  for (const item of text.split(',')) {
    const [range, step, ...more] = item.split('/');
    if (more.length > 0) return 'more than one "/"';
    if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0))
      return `step "${step}" must be a positive number`;
    if (range === '*') continue;
    const [from, to, ...extra] = range!.split('-');
    if (extra.length > 0) return `"${range}" has more than one "-"`;
    const start = fieldValue(from!, field);
    if (start === undefined) return `"${from}" is not ${allowed(field)}`;
    if (to === undefined) continue;
    const end = fieldValue(to, field);
    if (end === undefined) return `"${to}" is not ${allowed(field)}`;
    if (end < start) return `range "${range}" ends before it starts`;
  }
  return undefined;
}

function fieldValue(text: string, field: CronField): number | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= field.min && n <= field.max ? n : undefined;
  }
  const lower = text.toLowerCase();
  const index = field.names?.findIndex((name) => lower === name || lower === name.slice(0, 3)) ?? -1;
  return index < 0 ? undefined : index + (field.names === months ? 1 : 0);
}

const allowed = (field: CronField) =>
  `${field.min}-${field.max}${field.names ? ` or a name (${field.names[0]!.slice(0, 3)}, …)` : ''}`;

const durationUnits: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Go-style durations as Temporal reads them in `@every`: `90m`, `1h30m`, `1.5h`, `1d`. */
function durationMs(text: string): number | undefined {
  if (!/^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(n) * durationUnits[unit!]!;
  return total;
}

function isTimeZone(name: string): boolean {
  if (!name) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
