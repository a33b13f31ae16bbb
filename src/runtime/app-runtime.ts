/**
 * The composition root of the Functions entry: the runtime every function of this worker
 * process shares, built from the app settings on the first invocation (nothing runs at import
 * time, so a cold start only loads code). A failed build (say, an invalid configuration) is not
 * kept: fixing it fixes the next invocation.
 */
import { createRuntime, once, type Runtime } from './runtime.js';

export const appRuntime: () => Promise<Runtime> = once(async () => {
  const rt = await createRuntime({ env: process.env });
  await rt.storage.ensure();
  return rt;
});
