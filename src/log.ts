import { redactLogArgs, redactSecrets } from './redact.js';

/** The logging surface every module takes: an InvocationContext satisfies it, and so does console. */
export interface Log {
  /** Routine detail (each tick's pass, each message, the seed's step-by-step lines): shown only when asked for. */
  debug?(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/** Every line through `redact` (src/redact.ts): no query string, credential or control character reaches the sink. */
export const consoleLog: Log = {
  info: (...a) => console.log(...redactLogArgs(a)),
  warn: (...a) => console.warn(...redactLogArgs(a)),
  error: (...a) => console.error(...redactLogArgs(a)),
};

/** consoleLog with the routine lines too (`drover run --verbose`). */
export const verboseConsoleLog: Log = { ...consoleLog, debug: consoleLog.info };

/** Each line of `log` led by its time in ISO 8601 (UTC): a host's log read later says when. */
export function timestamped(log: Log, now: () => number): Log {
  const at = () => new Date(now()).toISOString();
  return {
    ...(log.debug ? { debug: (...a: unknown[]) => log.debug!(at(), ...a) } : {}),
    info: (...a) => log.info(at(), ...a),
    warn: (...a) => log.warn(at(), ...a),
    error: (...a) => log.error(at(), ...a),
  };
}

export const silentLog: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** An InvocationContext logs through `log`, not `info`; lines are redacted like consoleLog's. */
export function invocationLog(ctx: { debug(...a: unknown[]): void; log(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void }): Log {
  return {
    debug: (...a) => ctx.debug(...redactLogArgs(a)),
    info: (...a) => ctx.log(...redactLogArgs(a)),
    warn: (...a) => ctx.warn(...redactLogArgs(a)),
    error: (...a) => ctx.error(...redactLogArgs(a)),
  };
}

/** An error's message, redacted: it may become a `lastError`, a decision or a log line. */
export function errorMessage(err: unknown): string {
  return redactSecrets(err instanceof Error ? err.message : String(err));
}
