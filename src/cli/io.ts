/** The command line's view of the process: where text goes, the environment, and when to stop. */

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** Resolves on the first SIGINT or SIGTERM (Ctrl+C), then stops listening. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

export interface StopOptions {
  /** After the first stop request, the process exits (code 130) this long later, stopped or not. */
  graceMs?: number;
  /** How often to check that the parent process is still there. */
  parentCheckMs?: number;
}

export interface StopRequest {
  /** Aborts on SIGINT, SIGTERM or SIGHUP, or when the parent process goes away; its reason says which. */
  signal: AbortSignal;
  /** Stops listening, and calls off the forced exit: the process has stopped and ends as usual. */
  dispose(): void;
}

/**
 * For long-running verbs (`drover run`, `drover sim`): a signal that aborts when the process is
 * asked to stop. Whoever started us may go without a word (an IDE's stop button kills npm, not
 * its child), so a change of parent counts as a request too. A second request, or the grace
 * period running out, ends the process at once; 'exit' listeners (which kill child processes and
 * remove temporary folders synchronously) still run.
 */
export function stopRequest(options: StopOptions = {}): StopRequest {
  const graceMs = options.graceMs ?? 1_500;
  const ac = new AbortController();
  const parent = process.ppid;
  let grace: NodeJS.Timeout | undefined;
  const request = (why: string) => {
    if (ac.signal.aborted) process.exit(130);
    ac.abort(new Error(why));
    grace = setTimeout(() => process.exit(130), graceMs).unref();
  };
  const onSignal = (name: NodeJS.Signals) => request(name);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  const watch = setInterval(() => {
    if (process.ppid !== parent) request('the parent process went away');
  }, options.parentCheckMs ?? 250);
  watch.unref();
  return {
    signal: ac.signal,
    dispose() {
      clearTimeout(grace);
      clearInterval(watch);
      for (const s of signals) process.off(s, onSignal);
    },
  };
}

/** Resolves when `signal` aborts (at once if it has). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
