/**
 * The composition root of the Functions entry: the runtime every function of this worker
 * process shares, built from the app settings on the first invocation (nothing runs at import
 * time, so a cold start only loads code). A failed build (say, an invalid configuration) is not
 * kept: fixing it fixes the next invocation.
 */
import { consoleLog, type Log } from '../log.js';
import { createRuntime, once, type Runtime, type RuntimeOptions } from './runtime.js';
import { logStorageEvents } from './storage-events.js';

/** The runtime with storage's own warnings (stalls, lost tables) going to `log`: in Azure, the worker's console (see storage-events.ts). */
export async function createAppRuntime(options: RuntimeOptions & { log: Log }): Promise<Runtime> {
  const { log, ...runtimeOptions } = options;
  const rt = await createRuntime(runtimeOptions);
  logStorageEvents(rt, log);
  await rt.storage.ensure();
  return rt;
}

export const appRuntime: () => Promise<Runtime> = once(() => createAppRuntime({ env: process.env, log: consoleLog }));
