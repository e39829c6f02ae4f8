import { logContext } from './log-context.js';

/**
 * The logging interface lib/ depends on. In Lambda it is backed by `lambdaLogger` (structured JSON, Powertools' fields);
 * in local mode by the same logger on stdout, in tests by a capturing one. Fields must never carry secrets.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** One structured JSON line per entry on stdout, for local tooling (scripts/start.ts). */
export function jsonConsoleLogger(base: Record<string, unknown> = {}): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    process.stdout.write(
      `${JSON.stringify({ level, message, timestamp: new Date().toISOString(), ...base, ...logContext(), ...fields })}\n`,
    );
  };
  return {
    debug: (message, fields) => {
      if (process.env.LOG_LEVEL === 'DEBUG') write('DEBUG', message, fields);
    },
    info: (message, fields) => write('INFO', message, fields),
    warn: (message, fields) => write('WARN', message, fields),
    error: (message, fields) => write('ERROR', message, fields),
  };
}

/**
 * Keeps every entry in memory, so tests can assert on what was logged; an entry logged inside a log context
 * (log-context.ts) holds its fields too, as the Lambda logger's line would.
 */
export class CapturingLogger implements Logger {
  readonly entries: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  debug(message: string, fields?: Record<string, unknown>) {
    this.#push('debug', message, fields);
  }
  info(message: string, fields?: Record<string, unknown>) {
    this.#push('info', message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>) {
    this.#push('warn', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>) {
    this.#push('error', message, fields);
  }
  #push(level: string, message: string, fields: Record<string, unknown> | undefined) {
    const context = logContext();
    this.entries.push({ level, message, fields: context ? { ...context, ...fields } : fields });
  }
}

/** Counts that say a tick looked, not that it did anything. */
const LOOK_COUNTS: ReadonlySet<string> = new Set(['read', 'looked', 'examined', 'alreadyDecided', 'watched']);

/** True when a tick's report counts anything done: a positive number outside `LOOK_COUNTS`, at any depth. */
export function reportsActivity(report: unknown): boolean {
  if (typeof report !== 'object' || report === null) return false;
  return Object.entries(report).some(([name, value]) =>
    typeof value === 'number' ? value > 0 && !LOOK_COUNTS.has(name) : reportsActivity(value),
  );
}

/**
 * Logs the end of a scheduled tick: at INFO when it did something, at DEBUG when it only looked, so an idle
 * minute adds nothing to the INFO log.
 */
export function logTick(logger: Logger, message: string, report: Record<string, unknown>): void {
  if (reportsActivity(report)) logger.info(message, report);
  else logger.debug(message, report);
}
