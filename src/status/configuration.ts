/**
 * What status says of an object this host leaves to a newer configuration (src/reconcile/config-stamp.ts):
 * judged against the configuration of the host that answers, by the rule its passes follow.
 */
import { leftToNewer, leftToNewerText } from '../reconcile/config-stamp.js';
import type { Runtime } from '../runtime/runtime.js';

export async function leftAloneField(rt: Pick<Runtime, 'configuration'>, stored: unknown): Promise<{ leftAlone?: string }> {
  const newer = await leftToNewer(stored, rt.configuration.seq, () => rt.configuration.newest.newerLive());
  return newer === undefined ? {} : { leftAlone: leftToNewerText(newer) };
}
