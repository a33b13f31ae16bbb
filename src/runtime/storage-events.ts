/**
 * What storage says of itself outside any one invocation (lost tables or queues made again,
 * calls that stalled, this host's clock far off storage's) goes to the host's log: the local host's, and in Azure the worker's
 * console, which the Functions host records as the app's traces in Application Insights.
 * Redacted, as every Drover line is (the stall watch redacts its line, the console log again).
 */
import type { Log } from '../log.js';
import type { Runtime } from './runtime.js';

export function logStorageEvents(rt: Pick<Runtime, 'storage' | 'onClockSkew'>, log: Log): void {
  rt.storage.onRecreated(() => log.warn(`storage had lost the ${rt.storage.prefix} tables or queues: created them again`));
  rt.onClockSkew((line) => log.warn(line));
  rt.storage.onStalled((line, event) => (event === 'answers again' ? log.info(line) : log.warn(line)));
}
