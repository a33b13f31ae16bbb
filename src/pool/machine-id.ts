/**
 * An operator names a machine the way Drover printed it: the full provider id (`status --json`,
 * the decision log), the short id (`status`: `rg/vmss/3`), or the VM's name (`vmss_3`, as ARM
 * and its portal call it). Each is resolved to the one provider id it stands for.
 */
import { AZURE_PREFIX, shortId, tryProviderIdFromResourceId, vmNameFromId } from '../cache/ids.js';

export interface KnownMachine {
  id: string;
  /** ARM's name for the VM, when ARM listed it. */
  name?: string;
}

export type MachineMatch = { kind: 'found'; id: string } | { kind: 'none' } | { kind: 'ambiguous'; ids: string[] };

/** The provider id a full id stands for, with or without `azure://` and in any resource group case. */
function asProviderId(input: string): string | undefined {
  if (input.startsWith(AZURE_PREFIX)) return tryProviderIdFromResourceId(input.slice(AZURE_PREFIX.length));
  return input.startsWith('/subscriptions/') ? tryProviderIdFromResourceId(input) : undefined;
}

/** Short ids and names compare case-insensitively, as Azure compares resource groups and names. */
function isNamedBy(machine: KnownMachine, input: string): boolean {
  const wanted = input.toLowerCase();
  const names = [shortId(machine.id), machine.name, vmNameFromId(machine.id)];
  return names.some((n) => n !== undefined && n.toLowerCase() === wanted);
}

export function matchMachine(input: string, known: readonly KnownMachine[]): MachineMatch {
  const text = input.trim();
  const full = asProviderId(text);
  const hits = new Set(known.filter((m) => (full !== undefined ? m.id === full : isNamedBy(m, text))).map((m) => m.id));
  if (hits.size === 0) return { kind: 'none' };
  if (hits.size > 1) return { kind: 'ambiguous', ids: [...hits] };
  return { kind: 'found', id: [...hits][0]! };
}
