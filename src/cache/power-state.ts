/**
 * A VM's power state as the instance cache reads it from the instance view.
 *
 * | instance view                           | power state                          |
 * | --------------------------------------- | ------------------------------------ |
 * | absent (ARM could not produce one)      | `PowerState/running` (assume alive)  |
 * | present, statuses absent or empty       | `PowerState/unknown`                 |
 * | present, statuses                       | first *known* PowerState code, else unknown |
 */
import type { VmRecord, VmStatusRecord } from '../azure/scale-set-api.js';

export const POWER_STATES = [
  'PowerState/starting',
  'PowerState/running',
  'PowerState/stopping',
  'PowerState/stopped',
  'PowerState/deallocating',
  'PowerState/deallocated',
  'PowerState/unknown',
] as const;

export type PowerState = (typeof POWER_STATES)[number];

export function isKnownPowerState(code: string | undefined): code is PowerState {
  return (POWER_STATES as readonly (string | undefined)[]).includes(code);
}

/** Starting counts as running: the VM got past provisioning. */
export function isRunningPowerState(state: PowerState): boolean {
  return state === 'PowerState/running' || state === 'PowerState/starting';
}

export function powerStateFromStatuses(statuses: readonly VmStatusRecord[]): PowerState {
  for (const status of statuses) {
    if (isKnownPowerState(status.code)) return status.code;
  }
  return 'PowerState/unknown';
}

export function powerStateOfVm(vm: Pick<VmRecord, 'instanceView'>): PowerState {
  if (vm.instanceView === undefined) return 'PowerState/running';
  return powerStateFromStatuses(vm.instanceView.statuses ?? []);
}
