/**
 * Provider ids in the Cluster Autoscaler's form: `azure://` + the ARM resource id with only the
 * resource group lower-cased. ARM answers with the resource group in whatever case it was
 * created with (and not always the same case from every endpoint), so ids are only comparable
 * after this normalisation.
 */

export const AZURE_PREFIX = 'azure://';

/** Longer than any ARM resource id; a longer one is refused before it is looked at. */
export const MAX_RESOURCE_ID_LENGTH = 1024;

export class InvalidResourceIdError extends Error {
  constructor(readonly resourceId: string) {
    super(
      resourceId.length > MAX_RESOURCE_ID_LENGTH
        ? `resource id "${resourceId.slice(0, 80)}…" is longer than ${MAX_RESOURCE_ID_LENGTH} characters`
        : `resource id "${resourceId}" has no /subscriptions/…/resourceGroups/…/providers/ path`,
    );
    this.name = 'InvalidResourceIdError';
  }
}

export function isInvalidResourceIdError(error: unknown): error is InvalidResourceIdError {
  return error instanceof InvalidResourceIdError;
}

/**
 * Lower-cases the resource group of a resource id (with or without the `azure://` prefix).
 * Only the first occurrence of the group's text is replaced, exactly as upstream does.
 * @throws InvalidResourceIdError when the id has no resource group path.
 */
export function lowerCaseResourceGroup(id: string): string {
  // The VMs of one listing differ in their last segment only: their head is normalised once.
  // The group lies in the head (the last segment is never a `providers` one), and the first
  // occurrence of its text is there too, so head and tail can be normalised apart.
  const cut = id.lastIndexOf('/');
  const head = id.slice(0, cut);
  const tail = id.slice(cut);
  if (cut > 0 && head === lastHead.from && id.length <= MAX_RESOURCE_ID_LENGTH && !LINE_BREAK.test(tail)) return lastHead.to + tail;
  const resourceGroup = resourceGroupOf(id);
  if (resourceGroup === undefined) throw new InvalidResourceIdError(id);
  // A replacer function, so that `$` in a group name is not read as a replacement pattern.
  const normalised = id.replace(resourceGroup, () => resourceGroup.toLowerCase());
  if (cut > 0) lastHead = { from: head, to: normalised.slice(0, cut) };
  return normalised;
}

const LINE_BREAK = /[\n\r\u2028\u2029]/;
/** The last id head normalised (`lowerCaseResourceGroup`): a cache of one entry, for the VMs of one listing. */
let lastHead = { from: '', to: '' };

/**
 * The resource group as upstream's greedy pattern
 * `.*\/subscriptions\/(?:.*)\/resourceGroups\/(.+)\/providers\/(?:.*)` finds it (with repeated
 * segments the last `/providers/` wins), but from the id's `/`-separated segments, in one linear
 * pass: a regular expression here backtracked for seconds on a crafted id.
 */
function resourceGroupOf(id: string): string | undefined {
  if (id.length > MAX_RESOURCE_ID_LENGTH || LINE_BREAK.test(id)) return undefined;
  const segments = id.split('/');
  // `/providers/` needs a segment after it, `/subscriptions/` a `/` before it.
  const providers = segments.lastIndexOf('providers', segments.length - 2);
  const firstSubscriptions = segments.indexOf('subscriptions', 1);
  if (providers < 0 || firstSubscriptions < 0) return undefined;
  // The last `/resourceGroups/` with a non-empty group before `providers` and a
  // `/subscriptions/…/` (at least one `/` between) before it.
  for (let rg = providers - 2; rg >= firstSubscriptions + 2; rg--) {
    if (segments[rg] !== 'resourceGroups') continue;
    const group = segments.slice(rg + 1, providers).join('/');
    if (group !== '') return group;
  }
  return undefined;
}

/**
 * The provider id of a VM from its ARM resource id.
 * @throws InvalidResourceIdError when the id has no resource group path.
 */
export function providerIdFromResourceId(resourceId: string): string {
  return AZURE_PREFIX + lowerCaseResourceGroup(resourceId);
}

/** Like {@link providerIdFromResourceId}, but `undefined` for an id that cannot be normalised. */
export function tryProviderIdFromResourceId(resourceId: string): string | undefined {
  try {
    return providerIdFromResourceId(resourceId);
  } catch (error) {
    if (isInvalidResourceIdError(error)) return undefined;
    throw error;
  }
}

/**
 * The id that `deleteInstances` expects: the last path segment of the provider id, which is the
 * instance id of a Uniform scale set VM and the VM name of a Flexible one.
 * @throws InvalidResourceIdError when the provider id is not a resource id.
 */
export function instanceIdFromProviderId(providerId: string): string {
  const resourceId = providerId.startsWith(AZURE_PREFIX)
    ? providerId.slice(AZURE_PREFIX.length)
    : providerId;
  lowerCaseResourceGroup(resourceId);
  const last = resourceId.replace(/\/+$/, '').split('/').pop();
  if (!last) throw new InvalidResourceIdError(providerId);
  return last;
}

/**
 * The parts of a VM id, read off its last `/`-separated segments (case-insensitive literals, as
 * `/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachineScaleSets/{ss}/virtualMachines/{n}`
 * or `/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachines/{name}` at the end), without
 * a regular expression: this runs for every VM a pass names.
 */
function vmParts(id: string): { rg: string; scaleSet?: string; last: string } | undefined {
  const s = id.split('/');
  const n = s.length;
  const is = (i: number, literal: string) => i >= 1 && s[i]!.length === literal.length && s[i]!.toLowerCase() === literal;
  const named = (i: number) => i >= 1 && s[i] !== '';
  if (!named(n - 1) || !is(n - 2, 'virtualmachines')) return undefined;
  if (named(n - 3) && is(n - 4, 'virtualmachinescalesets') && is(n - 5, 'microsoft.compute') && is(n - 6, 'providers') && named(n - 7) && is(n - 8, 'resourcegroups')) {
    return { rg: s[n - 7]!, scaleSet: s[n - 3]!, last: s[n - 1]! };
  }
  if (is(n - 3, 'microsoft.compute') && is(n - 4, 'providers') && named(n - 5) && is(n - 6, 'resourcegroups')) return { rg: s[n - 5]!, last: s[n - 1]! };
  return undefined;
}

/**
 * A VM id as people read it: `rg/vmss/3` for a scale set VM, `rg/name` for a Flexible one; an id
 * of another shape is left whole. `--json` keeps the full ids.
 */
export function shortId(id: string): string {
  const vm = vmParts(id);
  if (!vm) return id;
  return vm.scaleSet === undefined ? `${vm.rg}/${vm.last}` : `${vm.rg}/${vm.scaleSet}/${vm.last}`;
}

/** The VM's name as ARM gives it (`vmss_3` for a scale set VM), read off its id; none for another shape. */
export function vmNameFromId(id: string): string | undefined {
  const vm = vmParts(id);
  if (!vm) return undefined;
  return vm.scaleSet === undefined ? vm.last : `${vm.scaleSet}_${vm.last}`;
}
