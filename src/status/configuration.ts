/**
 * What status says of an object this host leaves to a newer configuration (src/reconcile/config-stamp.ts):
 * judged against the configuration of the host that answers, as its passes judge it.
 */
import { leftToNewerText, newerStamp } from '../reconcile/config-stamp.js';

export function leftAloneField(stored: unknown, mine: number): { leftAlone?: string } {
  const newer = newerStamp(stored, mine);
  return newer === undefined ? {} : { leftAlone: leftToNewerText(newer) };
}
