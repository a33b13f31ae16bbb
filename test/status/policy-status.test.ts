// `targets[].policy` in status, from the configuration and the row: a table.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { TargetRecord } from '../../src/scaler/read/target-record.js';
import { policyLine, policyStatus } from '../../src/status/policy-status.js';

const MIN = 60_000;

function target(extra: Record<string, unknown>, ref: Record<string, unknown> = { kind: 'Deployment', name: 'web' }) {
  return parseConfig(
    {
      kubernetes: {},
      pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, maxCount: 10 }],
      targets: [{ name: 'web', scaleTargetRef: ref, minScale: 1, load: { source: 'push', targetPerReplica: 10 }, ...extra }],
    },
    '(inline)',
    { offline: true },
  ).targets[0]!;
}

const learned: TargetRecord = { startupDelay: JSON.stringify({ observed: [4 * MIN, 5 * MIN, 4 * MIN] }), loadMinutes: JSON.stringify({ s: 10, v: [40, 50], u: [5, 6], r: [5, 5], c: [5, 6], h: [11, 300_000, 12.345], b: [11, -14.4] }) };
// 126 minutes: 120 to calibrate on, the 5 of the learned start-up before them, and the minute in progress.
const column = (v: number) => Array<number>(126).fill(v);
const calibrated: TargetRecord = { ...learned, loadMinutes: JSON.stringify({ s: 10, v: column(40), u: column(5), r: column(5), c: column(5), h: [135, 300_000, 12.345, 40], b: [135, -14.4] }) };

describe('targets[].policy in status', () => {
  it.each([
    { name: 'policy knative shows its name alone', extra: { policy: 'knative' }, ref: undefined, record: undefined, want: { name: 'knative' } },
    {
      // No row yet: a young target's evidence window, half the longest (8 start-up delays of 30 s).
      name: 'a target that names no policy runs the adaptive one',
      extra: {},
      ref: undefined,
      record: undefined,
      want: { name: 'adaptive', startupDelay: { seconds: 30, from: 'default' }, headroom: { underProvisioning: 1, inForce: 1, load: null }, scaleDownEvidence: { minutes: 4 }, forecast: { mode: 'off', floor: null } },
    },
    {
      // 8 start-up delays of 3 minutes: a young target's window, half of the longest (48).
      name: 'a new Pool target plans with the VM default, no headroom computed yet, and a young target’s evidence window',
      extra: { policy: 'adaptive' },
      ref: { kind: 'Pool', name: 'workers' },
      record: undefined,
      want: { name: 'adaptive', startupDelay: { seconds: 180, from: 'default' }, headroom: { underProvisioning: 1, inForce: 1, load: null }, scaleDownEvidence: { minutes: 24 }, forecast: { mode: 'off', floor: null } },
    },
    {
      // A balance of −14.4 (overspent by 0.01 a minute for a day's 1,440): 5 % − 14.4 ÷ 1,440 = 4 %.
      name: 'a Deployment that learned 5 minutes shows them, its budget as configured and in force, and its last headroom',
      extra: { policy: 'adaptive', headroom: { underProvisioning: 5 } },
      ref: undefined,
      record: calibrated,
      want: { name: 'adaptive', startupDelay: { seconds: 300, from: 'learned' }, headroom: { underProvisioning: 5, inForce: 4, load: 12.35 }, scaleDownEvidence: { minutes: 40 }, forecast: { mode: 'off', floor: null } },
    },
    {
      // Its window asks for 40 replicas a minute, its day 32 on average: 4 % × 40 ÷ 32 = 5 %.
      name: 'the budget in force is weighted by the window’s demand against the day’s',
      extra: { policy: 'adaptive', headroom: { underProvisioning: 5 } },
      ref: undefined,
      record: { ...calibrated, loadMinutes: calibrated.loadMinutes!.replace('"b":[135,-14.4]', '"b":[135,-14.4,32,1440]') },
      want: { name: 'adaptive', startupDelay: { seconds: 300, from: 'learned' }, headroom: { underProvisioning: 5, inForce: 5, load: 12.35 }, scaleDownEvidence: { minutes: 40 }, forecast: { mode: 'off', floor: null } },
    },
    {
      name: 'a row whose evidence window is past the longest (written by hand, or for a longer delay) is read as the longest',
      extra: { policy: 'adaptive', headroom: { underProvisioning: 5 } },
      ref: undefined,
      record: { ...calibrated, loadMinutes: calibrated.loadMinutes!.replace('[135,300000,12.345,40]', '[135,300000,12.345,10000]') },
      want: { name: 'adaptive', startupDelay: { seconds: 300, from: 'learned' }, headroom: { underProvisioning: 5, inForce: 4, load: 12.35 }, scaleDownEvidence: { minutes: 80 }, forecast: { mode: 'off', floor: null } },
    },
    {
      name: 'the same with two minutes of load: no headroom calibrated yet, the evidence window a young target takes (8 × 5 minutes)',
      extra: { policy: 'adaptive', headroom: { underProvisioning: 5 } },
      ref: undefined,
      record: learned,
      want: { name: 'adaptive', startupDelay: { seconds: 300, from: 'learned' }, headroom: { underProvisioning: 5, inForce: 4, load: null }, scaleDownEvidence: { minutes: 40 }, forecast: { mode: 'off', floor: null } },
    },
    {
      // The row's last minute is 11 (bucket 2): a day before it the level was 10 (buckets −289 … −286)
      // and the 2 buckets after it (5 minutes ahead: ⌈5 ÷ 5⌉ + 1) 40; level 45 now, headroom 12.345:
      // ⌈45 + 30 + 12.345⌉ = 88 replicas. (Its budget of 1 %, overspent by the row's balance, is in
      // force at its least: a quarter.)
      name: 'a target with forecast: observe shows the floor its row forecasts on its last minute',
      extra: { forecast: { mode: 'observe' } },
      ref: undefined,
      record: { ...learned, loadSeason: JSON.stringify({ s: -289, v: [10, 10, 10, 10, 40, 40] }) },
      want: { name: 'adaptive', startupDelay: { seconds: 300, from: 'learned' }, headroom: { underProvisioning: 1, inForce: 0.25, load: null }, scaleDownEvidence: { minutes: 40 }, forecast: { mode: 'observe', floor: 88 } },
    },
    {
      name: 'forecast: floor before a day of load has no floor yet',
      extra: { forecast: { mode: 'floor' } },
      ref: undefined,
      record: learned,
      want: { name: 'adaptive', startupDelay: { seconds: 300, from: 'learned' }, headroom: { underProvisioning: 1, inForce: 0.25, load: null }, scaleDownEvidence: { minutes: 40 }, forecast: { mode: 'floor', floor: null } },
    },
  ])('$name', ({ extra, ref, record, want }) => {
    expect(policyStatus(target(extra, ref), record)).toEqual(want);
  });
});

const OFF = { mode: 'off' as const, floor: null };

describe('the policy line people read (drover status, the status page)', () => {
  it.each([
    { name: 'knative has none', policy: { name: 'knative' as const }, want: undefined },
    {
      name: 'a new adaptive target says it has no headroom yet',
      policy: { name: 'adaptive' as const, startupDelay: { seconds: 180, from: 'default' as const }, headroom: { underProvisioning: 1, inForce: 1, load: null }, scaleDownEvidence: { minutes: 24 }, forecast: OFF },
      // VMs 3 minutes ahead: the level of a young target is the mean of its last 2 × 3 minutes.
      want: 'policy adaptive: start-up 180 s (default), no headroom yet (the level is the last 6 min until two hours of load), budget 1 % of demand unserved (in force 1 %), a fall after 24 min lower',
    },
    {
      name: 'a calibrated one shows its headroom and the budget in force',
      policy: { name: 'adaptive' as const, startupDelay: { seconds: 30, from: 'learned' as const }, headroom: { underProvisioning: 1, inForce: 0.8, load: 12.5 }, scaleDownEvidence: { minutes: 24 }, forecast: OFF },
      want: 'policy adaptive: start-up 30 s (learned), headroom 12.5, budget 1 % of demand unserved (in force 0.8 %), a fall after 24 min lower',
    },
    {
      name: 'a forecast that is not off says its mode and its floor',
      policy: { name: 'adaptive' as const, startupDelay: { seconds: 30, from: 'learned' as const }, headroom: { underProvisioning: 1, inForce: 0.8, load: 12.5 }, scaleDownEvidence: { minutes: 24 }, forecast: { mode: 'floor' as const, floor: 14 } },
      want: 'policy adaptive: start-up 30 s (learned), headroom 12.5, budget 1 % of demand unserved (in force 0.8 %), a fall after 24 min lower, forecast floor: floor 14',
    },
    {
      name: 'or that it has none yet',
      policy: { name: 'adaptive' as const, startupDelay: { seconds: 30, from: 'learned' as const }, headroom: { underProvisioning: 1, inForce: 0.8, load: 12.5 }, scaleDownEvidence: { minutes: 24 }, forecast: { mode: 'observe' as const, floor: null } },
      want: 'policy adaptive: start-up 30 s (learned), headroom 12.5, budget 1 % of demand unserved (in force 0.8 %), a fall after 24 min lower, forecast observe: no floor yet (a day of load first)',
    },
  ])('$name', ({ policy, want }) => {
    expect(policyLine(policy)).toBe(want);
  });
});
