/** The logging surface every module takes: an InvocationContext satisfies it, and so does console. */
export interface Log {
  /** Routine detail (each tick's pass, each message, the seed's step-by-step lines): shown only when asked for. */
  debug?(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

export const consoleLog: Log = {
  info: (...a) => console.log(...a),
  warn: (...a) => console.warn(...a),
  error: (...a) => console.error(...a),
};

export const silentLog: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** An InvocationContext logs through `log`, not `info`. */
export function invocationLog(ctx: { debug(...a: unknown[]): void; log(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void }): Log {
  return { debug: (...a) => ctx.debug(...a), info: (...a) => ctx.log(...a), warn: (...a) => ctx.warn(...a), error: (...a) => ctx.error(...a) };
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
