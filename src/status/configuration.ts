/**
 * What status says of an object this host leaves to a newer configuration (src/job/config-stamp.ts):
 * judged against the configuration of the host that answers, by the rule its passes follow.
 */
import { leftToNewer, leftToNewerText, stampOf, type StampProps } from '../job/config-stamp.js';
import type { HostConfiguration } from '../queue/newest-config.js';

export async function leftAloneField(deps: { readonly configuration: HostConfiguration }, stored: StampProps | undefined): Promise<{ leftAlone?: string }> {
  const newer = await leftToNewer(stampOf(stored), deps.configuration, () => deps.configuration.newest.newerLive());
  return newer === undefined ? {} : { leftAlone: leftToNewerText(newer, deps.configuration) };
}
