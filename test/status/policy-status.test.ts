// `targets[].policy` in status, from the configuration and the row: a table.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { TargetRecord } from '../../src/scaler/read/target-record.js';
import { policyStatus } from '../../src/status/policy-status.js';

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

const learned: TargetRecord = { startupDelay: JSON.stringify({ observed: [4 * MIN, 5 * MIN, 4 * MIN] }), loadMinutes: JSON.stringify({ s: 10, v: [40, 50], h: [11, 300_000, 12.345] }) };

describe('targets[].policy in status', () => {
  it.each([
    { name: 'policy knative shows its name alone', extra: { policy: 'knative' }, ref: undefined, record: undefined, want: { name: 'knative' } },
    {
      name: 'a new Pool target plans with the VM default, no headroom computed yet',
      extra: { policy: 'adaptive' },
      ref: { kind: 'Pool', name: 'workers' },
      record: undefined,
      want: { name: 'adaptive', startupDelay: { seconds: 180, from: 'default' }, headroom: { underProvisioning: 1, load: null } },
    },
    {
      name: 'a Deployment that learned 5 minutes shows them, its budget and its last headroom',
      extra: { policy: 'adaptive', headroom: { underProvisioning: 5 } },
      ref: undefined,
      record: learned,
      want: { name: 'adaptive', startupDelay: { seconds: 300, from: 'learned' }, headroom: { underProvisioning: 5, load: 12.35 } },
    },
  ])('$name', ({ extra, ref, record, want }) => {
    expect(policyStatus(target(extra, ref), record)).toEqual(want);
  });
});
