/**
 * The autoscale hold and the pool notes as pure tables (src/pool/autoscale-hold.ts, notes.ts):
 * which settings hold a scale set, and what a planned pass notes for status.
 */
import { describe, expect, it } from 'vitest';
import { autoscaleHoldOf, heldBy, type AutoscaleRead } from '../../src/pool/autoscale-hold.js';
import { OVERPROVISION_WARNING, newWarnings, planNotes, type PoolNotes } from '../../src/pool/notes.js';
import type { AutoscaleSettingRecord } from '../../src/azure/autoscale-settings.js';
import type { ScaleSetInfo } from '../../src/azure/scale-set-api.js';

const ID = '/subscriptions/s/resourceGroups/RG-Work/providers/Microsoft.Compute/virtualMachineScaleSets/Workers';
const setting = (name: string, over: Partial<AutoscaleSettingRecord> = {}): AutoscaleSettingRecord => ({ id: `x/${name}`, name, enabled: true, targetResourceUri: ID, ...over });
const read = (...settings: AutoscaleSettingRecord[]): AutoscaleRead => ({ ok: true, settings });

describe('autoscaleHoldOf', () => {
  it.each<{ name: string; read: AutoscaleRead; want: string | undefined }>([
    { name: 'no settings in the group: no hold', read: read(), want: undefined },
    { name: 'an enabled setting on the scale set holds it, named', read: read(setting('cpu-rules')), want: heldBy('cpu-rules') },
    { name: 'the target is compared without case (ARM answers in any case)', read: read(setting('cpu-rules', { targetResourceUri: ID.toLowerCase() })), want: heldBy('cpu-rules') },
    { name: 'a disabled setting on the scale set holds nothing', read: read(setting('off', { enabled: false })), want: undefined },
    { name: 'an enabled setting on another scale set holds nothing', read: read(setting('elsewhere', { targetResourceUri: `${ID}-2` })), want: undefined },
    { name: 'a setting without a target holds nothing', read: read(setting('untargeted', { targetResourceUri: undefined })), want: undefined },
    { name: 'of several, the enabled one on the scale set is named', read: read(setting('off', { enabled: false }), setting('elsewhere', { targetResourceUri: 'x' }), setting('cpu-rules')), want: heldBy('cpu-rules') },
  ])('$name', ({ read: r, want }) => {
    expect(autoscaleHoldOf(r, ID, 'RG-Work')?.reason).toBe(want);
  });

  it('settings that could not be read hold, saying why and what permission is needed', () => {
    const hold = autoscaleHoldOf({ ok: false, error: 'list autoscale settings: 403 AuthorizationFailed' }, ID, 'RG-Work');
    expect(hold).toEqual({
      setting: undefined,
      reason: 'the autoscale settings of resource group RG-Work could not be read (list autoscale settings: 403 AuthorizationFailed); nothing is written to the scale set until they can be (Drover needs Microsoft.Insights/autoscalesettings/read there)',
    });
  });

  it('names the setting in the words of the issue', () => {
    expect(heldBy('cpu-rules')).toBe('autoscale setting "cpu-rules" is enabled on this scale set; disable it or remove the target');
  });
});

describe('planNotes', () => {
  const scaleSet = (over: Partial<ScaleSetInfo> = {}): ScaleSetInfo => ({ id: ID, name: 'Workers', location: 'westeurope', orchestrationMode: 'Uniform', capacity: 3, etag: '"1"', provisioningState: 'Succeeded', ...over });
  const NOW = Date.UTC(2026, 11, 2, 1, 0, 0);
  it.each<{ name: string; scaleSet: ScaleSetInfo; lines?: string[]; heldByMinAge?: number; hold?: string; previous?: PoolNotes; want: PoolNotes }>([
    { name: 'nothing to note: empty (no row is written)', scaleSet: scaleSet(), want: {} },
    { name: 'overprovisioning on a Uniform scale set: a warning', scaleSet: scaleSet({ overprovision: true }), want: { warnings: [OVERPROVISION_WARNING] } },
    { name: 'overprovisioning off: no warning', scaleSet: scaleSet({ overprovision: false }), want: {} },
    { name: 'a Flexible scale set has no overprovisioning to warn of', scaleSet: scaleSet({ overprovision: true, orchestrationMode: 'Flexible' }), want: {} },
    { name: 'an enabled terminate notification is noted with its timeout', scaleSet: scaleSet({ terminateNotification: { enabled: true, notBeforeTimeout: 'PT5M' } }), want: { terminateNotification: { enabled: true, notBeforeTimeout: 'PT5M' } } },
    { name: 'a disabled terminate notification is the same as none', scaleSet: scaleSet({ terminateNotification: { enabled: false, notBeforeTimeout: 'PT5M' } }), want: {} },
    { name: 'the scale-in line about protected VMs is kept', scaleSet: scaleSet(), lines: ['Below managed machine limit', '4 protected VMs kept above the wanted 1'], want: { keptAboveWanted: '4 protected VMs kept above the wanted 1' } },
    { name: 'VMs held by scaleIn.minAge are counted', scaleSet: scaleSet(), heldByMinAge: 2, want: { heldByMinAge: 2 } },
    { name: 'none held by minAge: nothing noted', scaleSet: scaleSet(), heldByMinAge: 0, want: {} },
    { name: 'a new hold starts now', scaleSet: scaleSet(), hold: 'held by x', want: { hold: { reason: 'held by x', setting: 'x', since: NOW } } },
    { name: 'the same hold keeps its start', scaleSet: scaleSet(), hold: 'held by x', previous: { hold: { reason: 'held by x', setting: 'x', since: NOW - 60_000 } }, want: { hold: { reason: 'held by x', setting: 'x', since: NOW - 60_000 } } },
    { name: 'another setting holding starts anew', scaleSet: scaleSet(), hold: 'held by y', previous: { hold: { reason: 'held by x', setting: 'x', since: NOW - 60_000 } }, want: { hold: { reason: 'held by y', setting: 'x', since: NOW } } },
  ])('$name', ({ scaleSet: s, lines = [], heldByMinAge, hold, previous = {}, want }) => {
    expect(planNotes({ scaleSet: s, lines, ...(heldByMinAge === undefined ? {} : { heldByMinAge }), hold: hold === undefined ? undefined : { setting: 'x', reason: hold }, previous, now: NOW })).toEqual(want);
  });

  it('a warning is new only in the pass that first notes it', () => {
    expect(newWarnings({}, { warnings: [OVERPROVISION_WARNING] })).toEqual([OVERPROVISION_WARNING]);
    expect(newWarnings({ warnings: [OVERPROVISION_WARNING] }, { warnings: [OVERPROVISION_WARNING] })).toEqual([]);
  });
});
