import { AsyncLocalStorage } from 'node:async_hooks';
import { currentTrace } from './tracing.js';

// A small structured logger: one JSON line per event on stderr, so the API, worker and dev stack
// share a format that log shippers read without configuration. Each line carries what it happened in: the trace
// and span (when tracing is on), and the fields `withLogFields` set for the work under way (the project, the
// workflow and activity of an activity). Secrets are masked on the way out (`redact`).
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const scope = new AsyncLocalStorage<LogFields>();

/** Runs `fn` with `fields` on every line logged inside it, through any logger (an activity's ids, a request's project). */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  return scope.run({ ...scope.getStore(), ...fields }, fn);
}

export function createLogger(
  level: LogLevel = 'info',
  base: LogFields = {},
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
): Logger {
  const log = (lvl: LogLevel) => (msg: string, fields?: LogFields) => {
    if (order[lvl] < order[level]) return;
    const line = { time: new Date().toISOString(), level: lvl, msg, ...currentTrace(), ...scope.getStore(), ...base };
    write(JSON.stringify({ ...line, ...fields }, redactingReplacer));
  };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

// A field named like a secret never shows its value, whatever its type (`S3_SECRET_KEY`, `apiKey`, `Authorization`);
// counts such as `inputTokens` are not secrets. Compared without `_` and `-`.
const secretKey =
  /(password|passwd|secret|secretkey|token|apikey|accesskey|authorization|cookie|privatekey|masterkey)$/i;
const isSecretKey = (key: string) => secretKey.test(key.replace(/[_-]/g, ''));
// Secrets that travel inside text: Proctor's API tokens, bearer credentials, a URL's password.
const secretText: [RegExp, string][] = [
  [/\bprt_[A-Za-z0-9_-]+/g, 'prt_[redacted]'],
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, '$1[redacted]@'],
];

/** `text` with the secrets it carries masked. */
export function redactText(text: string): string {
  return secretText.reduce((t, [pattern, by]) => t.replace(pattern, by), text);
}

function redactingReplacer(key: string, value: unknown): unknown {
  if (key && isSecretKey(key) && value !== null && value !== undefined && value !== '') return '[redacted]';
  if (value instanceof Error)
    return {
      name: value.name,
      message: redactText(value.message),
      stack: value.stack && redactText(value.stack),
    };
  if (typeof value === 'string') return redactText(value);
  return value;
}

export const silentLogger: Logger = createLogger('error', {}, () => {});
