import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  instanceIdFromProviderId,
  InvalidResourceIdError,
  isInvalidResourceIdError,
  lowerCaseResourceGroup,
  providerIdFromResourceId,
  tryProviderIdFromResourceId,
  shortId,
  vmNameFromId,
} from '../../src/cache/ids.js';

const SUB = '/subscriptions/00000000-0000-0000-0000-000000000000';
const VM = `${SUB}/resourceGroups/myResourceGroupName/providers/Microsoft.Compute/virtualMachines/k8s-agent-AAAAAAAA-0`;
const VMSS_VM = `${SUB}/resourceGroups/myResourceGroupName/providers/Microsoft.Compute/virtualMachineScaleSets/myScaleSetName/virtualMachines/156`;

describe('lowerCaseResourceGroup (upstream TestConvertResourceGroupNameToLower)', () => {
  it.each([
    { name: 'an empty id is an error', id: '' },
    { name: 'an id without path is an error', id: 'invalid-id' },
    { name: 'a prefixed id without path is an error', id: 'azure://invalid-id' },
  ])('$name', ({ id }) => {
    expect(() => lowerCaseResourceGroup(id)).toThrow(`resource id "${id}"`);
    expect(tryProviderIdFromResourceId(id)).toBeUndefined();
  });

  it.each([
    {
      name: 'a prefixed VM id gets only its resource group lower-cased',
      id: `azure://${VM}`,
      want: `azure://${VM.replace('myResourceGroupName', 'myresourcegroupname')}`,
    },
    {
      name: 'a bare VM id gets only its resource group lower-cased',
      id: VM,
      want: VM.replace('myResourceGroupName', 'myresourcegroupname'),
    },
    {
      name: 'a prefixed scale set VM id keeps the scale set name as it is',
      id: `azure://${VMSS_VM}`,
      want: `azure://${VMSS_VM.replace('myResourceGroupName', 'myresourcegroupname')}`,
    },
    {
      name: 'a bare scale set VM id keeps the scale set name as it is',
      id: VMSS_VM,
      want: VMSS_VM.replace('myResourceGroupName', 'myresourcegroupname'),
    },
  ])('$name', ({ id, want }) => {
    expect(lowerCaseResourceGroup(id)).toBe(want);
  });

  it('replaces only the first occurrence of the group text, as upstream does', () => {
    const id = `/subscriptions/RG/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/RG`;
    expect(lowerCaseResourceGroup(id)).toBe(
      '/subscriptions/rg/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/RG',
    );
  });

  it('does not read $ in a group name as a replacement pattern', () => {
    const id = `${SUB}/resourceGroups/Rg$&x/providers/Microsoft.Compute/virtualMachines/vm`;
    expect(lowerCaseResourceGroup(id)).toBe(`${SUB}/resourceGroups/rg$&x/providers/Microsoft.Compute/virtualMachines/vm`);
  });

  it('gives the VMs of one listing (one head, the last segment apart) what each id gives alone', () => {
    const head = `${SUB}/resourceGroups/My-RG/providers/Microsoft.Compute/virtualMachineScaleSets/My-RG`;
    const other = `${SUB}/resourceGroups/Other/providers/Microsoft.Compute/virtualMachines/vm`;
    const alone = (id: string) => (lowerCaseResourceGroup(other), lowerCaseResourceGroup(id));
    for (const tail of ['virtualMachines/0', 'virtualMachines/My-RG', 'virtualMachines/']) {
      const id = `${head}/${tail}`;
      lowerCaseResourceGroup(`${head}/virtualMachines/1`);
      expect(lowerCaseResourceGroup(id)).toBe(alone(id));
    }
    lowerCaseResourceGroup(`${head}/virtualMachines/1`);
    expect(() => lowerCaseResourceGroup(`${head}/virtualMachines/2\n`)).toThrow(InvalidResourceIdError);
    expect(() => lowerCaseResourceGroup(`${head}/virtualMachines/${'9'.repeat(1024)}`)).toThrow(InvalidResourceIdError);
  });

  it('names the bad id in a typed error', () => {
    let caught: unknown;
    try {
      lowerCaseResourceGroup('invalid-id');
    } catch (error) {
      caught = error;
    }
    expect(isInvalidResourceIdError(caught)).toBe(true);
  });
});

describe('provider id helpers', () => {
  it('builds a provider id from a resource id', () => {
    expect(providerIdFromResourceId(VMSS_VM)).toBe(
      `azure://${VMSS_VM.replace('myResourceGroupName', 'myresourcegroupname')}`,
    );
  });

  it.each([
    { name: 'a Uniform provider id gives its instance id', id: `azure://${VMSS_VM}`, want: '156' },
    { name: 'a Flexible provider id gives its VM name', id: `azure://${VM}`, want: 'k8s-agent-AAAAAAAA-0' },
    { name: 'a bare resource id works too', id: VMSS_VM, want: '156' },
  ])('$name', ({ id, want }) => {
    expect(instanceIdFromProviderId(id)).toBe(want);
  });

  it('refuses an id that is no resource id', () => {
    expect(() => instanceIdFromProviderId('azure://invalid-id')).toThrow('invalid-id');
  });
});

describe('resource ids parsed without backtracking (issue 13)', () => {
  // Upstream's pattern, kept here only as the reference the segment parser must agree with.
  const UPSTREAM = /.*\/subscriptions\/(?:.*)\/resourceGroups\/(.+)\/providers\/(?:.*)/;
  const upstream = (id: string) => {
    const group = UPSTREAM.exec(id)?.[1];
    return group === undefined ? undefined : id.replace(group, () => group.toLowerCase());
  };

  it('agrees with the upstream pattern on ids built from its own words', () => {
    const segment = fc.constantFrom('', 'subscriptions', 'resourceGroups', 'providers', 'RG', 'Rg/x', 'vm');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 9 }), (parts) => {
        const id = parts.join('/');
        let ours: string | undefined;
        try {
          ours = lowerCaseResourceGroup(id);
        } catch (error) {
          if (!isInvalidResourceIdError(error)) throw error;
        }
        expect(ours).toBe(upstream(id));
      }),
      { numRuns: 2_000 },
    );
  });

  it('answers at once for a crafted id that made the pattern backtrack for seconds', () => {
    const crafted = '/subscriptions/x/resourceGroups/'.repeat(32);
    expect(crafted.length).toBeLessThanOrEqual(1024);
    const started = performance.now();
    expect(tryProviderIdFromResourceId(crafted)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('refuses an id longer than 1,024 characters', () => {
    const long = `${SUB}/resourceGroups/${'g'.repeat(1024)}/providers/Microsoft.Compute/virtualMachines/vm`;
    expect(() => lowerCaseResourceGroup(long)).toThrow(/longer than 1024 characters/);
  });
});

describe('shortId and vmNameFromId', () => {
  // The regular expressions they were written with: the reference the segment reading must equal.
  const UNIFORM = /\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/([^/]+)\/virtualMachines\/([^/]+)$/i;
  const FLEXIBLE = /\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachines\/([^/]+)$/i;
  const byRegex = (id: string) => {
    const u = UNIFORM.exec(id);
    if (u) return { short: `${u[1]}/${u[2]}/${u[3]}`, name: `${u[2]}_${u[3]}` };
    const f = FLEXIBLE.exec(id);
    return f ? { short: `${f[1]}/${f[2]}`, name: f[2] } : { short: id, name: undefined };
  };
  const segment = fc.oneof(
    fc.constantFrom('resourceGroups', 'RESOURCEGROUPS', 'providers', 'Microsoft.Compute', 'microsoft.compute', 'virtualMachineScaleSets', 'virtualMachines', 'VirtualMachines', '', 'rg', 'ss', '0'),
    fc.string({ maxLength: 4 }).filter((t) => !t.includes('/')),
  );

  it('read any id as the regular expressions did', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 12 }), (segments) => {
        const id = segments.join('/');
        const want = byRegex(id);
        expect(shortId(id)).toBe(want.short);
        expect(vmNameFromId(id)).toBe(want.name);
      }),
      { numRuns: 3_000 },
    );
    // Ids of the two shapes, their literals in any case, their names possibly empty or missing.
    const literal = (text: string) => fc.constantFrom(text, text.toLowerCase(), text.toUpperCase(), `${text}x`);
    const name = fc.constantFrom('', 'a', 'Rg', '0');
    const shaped = fc.tuple(fc.array(segment, { maxLength: 3 }), literal('resourceGroups'), name, literal('providers'), literal('Microsoft.Compute'), fc.option(fc.tuple(literal('virtualMachineScaleSets'), name)), literal('virtualMachines'), name);
    fc.assert(
      fc.property(shaped, ([prefix, groups, rg, providers, compute, scaleSet, machines, last]) => {
        const id = [...prefix, groups, rg, providers, compute, ...(scaleSet ?? []), machines, last].join('/');
        expect(shortId(id)).toBe(byRegex(id).short);
        expect(vmNameFromId(id)).toBe(byRegex(id).name);
      }),
      { numRuns: 3_000 },
    );
    for (const id of [VM, VMSS_VM, `azure://${VMSS_VM}`]) {
      expect(shortId(id)).toBe(byRegex(id).short);
      expect(vmNameFromId(id)).toBe(byRegex(id).name);
    }
  });
});
