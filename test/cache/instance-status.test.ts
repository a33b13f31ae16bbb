import { describe, expect, it } from 'vitest';
import type { VmRecord } from '../../src/azure/scale-set-api.js';
import type { CachedInstance } from '../../src/cache/instance.js';
import {
  cseErrors,
  indexById,
  instanceStatusFromVm,
  statusFromProvisioningState,
} from '../../src/cache/instance-status.js';
import { isKnownPowerState, powerStateOfVm } from '../../src/cache/power-state.js';
import { FAILED_AFTER_INCREASE, FAILED_VM_MATRIX, OUT_OF_RESOURCES, flexVmId, uniformVmId } from './fixtures.js';

const OFF = { enableFastDeleteOnFailedProvisioning: false, enableDetailedCSEMessage: false };
const FAST_DELETE = { ...OFF, enableFastDeleteOnFailedProvisioning: true };
const CSE = { ...OFF, enableDetailedCSEMessage: true };

function vm(overrides: Partial<VmRecord> = {}): VmRecord {
  return {
    id: uniformVmId(1),
    name: 'agents_1',
    instanceId: '1',
    provisioningState: 'Succeeded',
    instanceView: { statuses: [{ code: 'PowerState/running' }] },
    ...overrides,
  };
}

function cached(id: string, state: CachedInstance['state']): CachedInstance {
  return { id, name: 'x', state, errorInfo: null, powerState: 'PowerState/running' };
}

describe('the failed-VM matrix (upstream TestInstanceStatusFromVM, Uniform)', () => {
  it.each(FAILED_VM_MATRIX)('$name', ({ fastDelete, powerState, want }) => {
    const failed = vm({ provisioningState: 'Failed', instanceView: { statuses: [{ code: powerState }] } });
    expect(instanceStatusFromVm(failed, new Map(), { ...OFF, enableFastDeleteOnFailedProvisioning: fastDelete })).toEqual(want);
  });
});

describe('the failed-VM matrix (upstream TestInstanceStatusFromProvisioningStateAndPowerState, Flex)', () => {
  it.each(FAILED_VM_MATRIX)('$name', ({ fastDelete, powerState, want }) => {
    expect(isKnownPowerState(powerState)).toBe(true);
    if (!isKnownPowerState(powerState)) return;
    expect(statusFromProvisioningState('Failed', powerState, fastDelete)).toEqual(want);
    const flexVm = vm({ id: flexVmId(1), provisioningState: 'Failed', instanceView: { statuses: [{ code: powerState }] } });
    expect(instanceStatusFromVm(flexVm, new Map(), { ...OFF, enableFastDeleteOnFailedProvisioning: fastDelete })).toEqual(want);
  });
});

describe('failed VM after a size increase (upstream, instance view variants)', () => {
  it.each(FAILED_AFTER_INCREASE)('$name', ({ vm: view, fastDeleteOff, fastDeleteOn }) => {
    const instanceView = 'instanceView' in view ? undefined : { statuses: [...view.statuses] };
    const failed = vm({ provisioningState: 'Failed', instanceView });
    expect(instanceStatusFromVm(failed, new Map(), OFF)).toEqual(fastDeleteOff);
    expect(instanceStatusFromVm(failed, new Map(), FAST_DELETE)).toEqual(fastDeleteOn);
  });
});

describe('provisioning states other than Failed', () => {
  it.each([
    { name: 'Deleting → Deleting', provisioningState: 'Deleting', want: 'Deleting' },
    { name: 'Creating → Creating', provisioningState: 'Creating', want: 'Creating' },
    { name: 'Succeeded → Running', provisioningState: 'Succeeded', want: 'Running' },
    { name: 'Migrating → Running', provisioningState: 'Migrating', want: 'Running' },
    { name: 'any other string → Running', provisioningState: 'Canceled', want: 'Running' },
    { name: 'states are compared exactly (deleting is not Deleting)', provisioningState: 'deleting', want: 'Running' },
  ])('$name', ({ provisioningState, want }) => {
    for (const flags of [OFF, FAST_DELETE]) {
      const stopped = vm({ provisioningState, instanceView: { statuses: [{ code: 'PowerState/stopped' }] } });
      expect(instanceStatusFromVm(stopped, new Map(), flags)).toEqual({ state: want, errorInfo: null });
    }
  });
});

describe('Updating or no provisioning state keeps what the cache knew', () => {
  const previous = [cached(`azure://${uniformVmId(1)}`, 'Deleting')];

  it.each([
    { name: 'Updating keeps a cached Deleting', provisioningState: 'Updating' },
    { name: 'no provisioning state keeps a cached Deleting', provisioningState: undefined },
  ])('$name', ({ provisioningState }) => {
    expect(instanceStatusFromVm(vm({ provisioningState }), indexById(previous), OFF)).toEqual({ state: 'Deleting', errorInfo: null });
  });

  it('keeps the cached error info too', () => {
    const failed = [{ ...cached(`azure://${uniformVmId(1)}`, 'Creating'), errorInfo: OUT_OF_RESOURCES }];
    expect(instanceStatusFromVm(vm({ provisioningState: 'Updating' }), indexById(failed), OFF)).toEqual({
      state: 'Creating',
      errorInfo: OUT_OF_RESOURCES,
    });
  });

  it('matches the cache through the normalised id (ARM answered with an upper-case resource group)', () => {
    const upper = vm({ id: uniformVmId(1, 'TEST-ASG'), provisioningState: 'Updating' });
    expect(instanceStatusFromVm(upper, indexById(previous), OFF).state).toBe('Deleting');
  });

  it.each([
    { name: 'an Updating VM the cache does not know is unknown', id: uniformVmId(2) },
    { name: 'an Updating VM with an unusable id is unknown', id: 'invalid-id' },
  ])('$name', ({ id }) => {
    expect(instanceStatusFromVm(vm({ id, provisioningState: 'Updating' }), indexById(previous), FAST_DELETE)).toEqual({
      state: null,
      errorInfo: null,
    });
  });

  it('applies to Flexible VMs as well (one function for both modes)', () => {
    const flexPrevious = [cached(`azure://${flexVmId('vm-1')}`, 'Deleting')];
    expect(instanceStatusFromVm(vm({ id: flexVmId('vm-1'), provisioningState: 'Updating' }), indexById(flexPrevious), OFF).state).toBe('Deleting');
  });
});

describe('power state derivation', () => {
  it.each([
    { name: 'no instance view is taken as running', view: undefined, want: 'PowerState/running' },
    { name: 'an instance view without statuses is unknown', view: {}, want: 'PowerState/unknown' },
    { name: 'an instance view with no statuses is unknown', view: { statuses: [] }, want: 'PowerState/unknown' },
    {
      name: 'the first known PowerState code wins, skipping others',
      view: { statuses: [{ code: 'ProvisioningState/failed' }, { code: 'PowerState/bogus' }, { code: 'PowerState/stopped' }, { code: 'PowerState/running' }] },
      want: 'PowerState/stopped',
    },
    { name: 'only unknown codes give unknown', view: { statuses: [{ code: 'PowerState/invalid' }] }, want: 'PowerState/unknown' },
  ])('$name', ({ view, want }) => {
    expect(powerStateOfVm({ instanceView: view })).toBe(want);
  });

  it('a deallocating VM that failed provisioning is fast-deleted', () => {
    const failed = vm({ provisioningState: 'Failed', instanceView: { statuses: [{ code: 'PowerState/deallocating' }] } });
    expect(instanceStatusFromVm(failed, new Map(), FAST_DELETE)).toEqual({ state: 'Creating', errorInfo: OUT_OF_RESOURCES });
  });
});

describe('custom script extension errors (upstream TestScaleSetCseErrors)', () => {
  const errorStatus = [{ level: 'Error', message: 'Error Message Test' }];

  it.each([
    { name: 'vmssCSE with an Error status fails', extension: 'vmssCSE', want: { failed: true, messages: ['Error Message Test'] } },
    { name: 'another extension is ignored', extension: 'notCSEExtension', want: { failed: false, messages: [] } },
    { name: 'the name is matched in any case', extension: 'VMSSCSE', want: { failed: true, messages: ['Error Message Test'] } },
  ])('$name', ({ extension, want }) => {
    expect(cseErrors([{ name: extension, statuses: errorStatus }])).toEqual(want);
  });

  it.each([
    { name: 'Warning statuses are not errors', statuses: [{ level: 'Warning', message: 'slow' }], want: { failed: false, messages: [] } },
    { name: 'no statuses are no errors', statuses: undefined, want: { failed: false, messages: [] } },
    { name: 'an Error without message counts as an empty message', statuses: [{ level: 'Error' }], want: { failed: true, messages: [''] } },
  ])('$name', ({ statuses, want }) => {
    expect(cseErrors([{ name: 'vmssCSE', statuses }])).toEqual(want);
  });

  it('no extensions are no errors', () => {
    expect(cseErrors(undefined)).toEqual({ failed: false, messages: [] });
  });
});

describe('CSE errors in the instance status', () => {
  const withCse = (provisioningState: string | undefined, power = 'PowerState/running') =>
    vm({
      provisioningState,
      instanceView: {
        statuses: [{ code: power }],
        extensions: [{ name: 'vmssCSE', statuses: [{ level: 'Error', message: 'exit 1' }, { level: 'Error', message: 'disk full' }] }],
      },
    });
  const cseFailure = {
    state: 'Creating',
    errorInfo: { errorClass: 'Other', errorCode: 'VMExtensionProvisioningFailed', errorMessage: 'agents_1: [exit 1 disk full]' },
  };

  it('with detailed CSE messages on, a running VM with CSE errors is Creating with the messages', () => {
    expect(instanceStatusFromVm(withCse('Succeeded'), new Map(), CSE)).toEqual(cseFailure);
  });

  it('with detailed CSE messages off, CSE errors are ignored', () => {
    expect(instanceStatusFromVm(withCse('Succeeded'), new Map(), OFF)).toEqual({ state: 'Running', errorInfo: null });
  });

  it('overrides Deleting', () => {
    expect(instanceStatusFromVm(withCse('Deleting'), new Map(), CSE)).toEqual(cseFailure);
  });

  it('overrides the fast-delete error info', () => {
    expect(instanceStatusFromVm(withCse('Failed', 'PowerState/stopped'), new Map(), { ...CSE, ...FAST_DELETE, enableDetailedCSEMessage: true })).toEqual(cseFailure);
  });

  it('does not apply while the cached status is kept (Updating)', () => {
    expect(instanceStatusFromVm(withCse('Updating'), new Map(), CSE)).toEqual({ state: null, errorInfo: null });
  });

  it('needs an instance view', () => {
    expect(instanceStatusFromVm(vm({ instanceView: undefined }), new Map(), CSE)).toEqual({ state: 'Running', errorInfo: null });
  });
});

describe('the previous list by id', () => {
  it('keeps the first of duplicate ids, as a search of the list would find it', () => {
    const first = cached(`azure://${uniformVmId(7)}`, 'Deleting');
    const second = cached(`azure://${uniformVmId(7)}`, 'Running');
    expect(indexById([first, second]).get(first.id)).toBe(first);
  });
});
