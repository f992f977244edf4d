import type { Logger as TemporalLogger, LogLevel as TemporalLevel, LogMetadata } from '@temporalio/worker';
import type { Logger, LogFields, LogLevel } from '../logger.js';

const levels: Record<TemporalLevel, LogLevel> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

// Temporal's names for what Proctor's lines already name otherwise: its `runId` is a workflow execution's, not a
// Proctor run's, and OpenTelemetry's interceptors write the trace in snake case.
const renamed: Record<string, string> = {
  runId: 'temporalRunId',
  trace_id: 'traceId',
  span_id: 'spanId',
  trace_flags: 'traceFlags',
};

function fieldsOf(meta: LogMetadata | undefined): LogFields {
  const fields: LogFields = {};
  for (const [key, value] of Object.entries(meta ?? {})) fields[renamed[key] ?? key] = value;
  return fields;
}

/** The Temporal Runtime's logger (the worker's lines, workflow and activity `log`) writing through Proctor's. */
export function temporalLogger(logger: Logger): TemporalLogger {
  const log = (level: TemporalLevel, message: string, meta?: LogMetadata) =>
    logger[levels[level] ?? 'info'](message, { source: 'temporal', ...fieldsOf(meta) });
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
