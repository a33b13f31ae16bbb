/**
 * What status says of an object this host leaves to a newer configuration (src/reconcile/config-stamp.ts):
 * judged against the configuration of the host that answers, by the rule its passes follow.
 */
import { leftToNewer, leftToNewerText, stampOf, type StampProps } from '../reconcile/config-stamp.js';
import type { Runtime } from '../runtime/runtime.js';

export async function leftAloneField(rt: Pick<Runtime, 'configuration'>, stored: StampProps | undefined): Promise<{ leftAlone?: string }> {
  const newer = await leftToNewer(stampOf(stored), rt.configuration, () => rt.configuration.newest.newerLive());
  return newer === undefined ? {} : { leftAlone: leftToNewerText(newer, rt.configuration) };
}
