/**
 * The derived reconcile table (peer-cases 3(b).3), run through a whole pass with fixed listings so
 * that each row checks both the decision and the creations it leads to.
 */
import { describe, expect, it } from 'vitest';
import type { ProvisioningDecision } from '../../src/provisioner/decide.js';
import type { InventoryRow, Machine, ProviderId } from '../../src/provisioner/machine.js';
import { runPoolPass } from '../../src/provisioner/provisioner.js';
import type { Limiter } from '../../src/provisioner/ports.js';
import {
  K, KF, P, RecordingLogger, ScriptedInventory, ScriptedProvider, U, heldSession, ids, machine, openLimiter, row,
} from './fakes.js';

interface Row {
  name: string;
  provider: Machine[];
  inventory?: InventoryRow[];
  maxCount?: number;
  chunkSize?: number;
  failCreate?: ProviderId[];
  wantCreateCalls: ProviderId[];
  want: Partial<ProvisioningDecision> & { kind: ProvisioningDecision['kind'] };
  wantFailed?: ProviderId[];
  wantSkipped?: ProviderId[];
  wantErrorLog?: RegExp;
}

const rows: Row[] = [
  {
    name: 'an empty provider and inventory bring nothing up',
    provider: [],
    wantCreateCalls: [],
    want: { kind: 'noCapacity', managed: 0, reason: 'No more capacity available.' },
  },
  {
    name: 'all unused machines are brought up, in ascending id order',
    provider: [U('c'), U('a'), U('b')],
    wantCreateCalls: ['a', 'b', 'c'],
    want: { kind: 'bringUp', managed: 0, available: 3, needed: 3 },
  },
  {
    name: 'max count caps the machines brought up',
    provider: ids('u', 5).map(U),
    maxCount: 2,
    wantCreateCalls: ['u01', 'u02'],
    want: { kind: 'bringUp', managed: 0, available: 5, needed: 2 },
  },
  {
    name: 'at the limit nothing more is brought up',
    provider: ids('x', 10).map(K),
    inventory: ids('x', 10).map((id) => row(id)),
    wantCreateCalls: [],
    want: { kind: 'atLimit', managed: 10, maxCount: 10 },
  },
  {
    name: 'above the limit nothing is scaled down',
    provider: [...ids('x', 12).map(K), U('a')],
    inventory: ids('x', 12).map((id) => row(id)),
    wantCreateCalls: [],
    want: { kind: 'atLimit', managed: 12, maxCount: 10 },
  },
  {
    name: 'without a limit one chunk is brought up',
    provider: ids('u', 30).map(U),
    maxCount: 0,
    chunkSize: 20,
    wantCreateCalls: ids('u', 20),
    want: { kind: 'bringUp', managed: 0, available: 30, needed: 30 },
  },
  {
    name: 'when fewer are needed than a chunk only those are brought up',
    provider: [...ids('x', 7).map(K), ...ids('u', 5).map(U)],
    inventory: ids('x', 7).map((id) => row(id)),
    chunkSize: 4,
    wantCreateCalls: ['u01', 'u02', 'u03'],
    want: { kind: 'bringUp', managed: 7, available: 5, needed: 3 },
  },
  {
    name: 'a chunk caps the machines needed',
    provider: ids('u', 100).map(U),
    chunkSize: 4,
    wantCreateCalls: ids('u', 4),
    want: { kind: 'bringUp', managed: 0, available: 100, needed: 10 },
  },
  {
    name: 'a used provider machine missing from the inventory refuses all work',
    provider: [K('x'), U('a')],
    wantCreateCalls: [],
    want: { kind: 'safetySwitch', providerOnly: ['x'], inventoryOnly: [] },
    wantErrorLog: /Provider machine has no corresponding machine in inventory\. \(PID: x\)/,
  },
  {
    name: 'an inventory machine missing from the provider refuses all work',
    provider: [K('x'), U('a')],
    inventory: [row('x'), row('y', null)],
    wantCreateCalls: [],
    want: { kind: 'safetySwitch', providerOnly: [], inventoryOnly: ['y'] },
    wantErrorLog: /Provider machine referred to in inventory but missing in provider\. \(PID: y\)/,
  },
  {
    name: 'a failed provider machine missing from the inventory is excused and still counted as managed',
    provider: [KF('x'), U('a'), U('b')],
    maxCount: 2,
    wantCreateCalls: ['a'],
    want: { kind: 'bringUp', managed: 1, needed: 1 },
  },
  {
    name: 'a failed inventory machine missing from the provider is excused but not counted as managed',
    provider: [U('a')],
    inventory: [row('y', 'ProvisioningFailedPermanent')],
    maxCount: 1,
    wantCreateCalls: ['a'],
    want: { kind: 'bringUp', managed: 0, needed: 1 },
  },
  {
    name: 'a machine of undefined availability refuses all work before any creation',
    provider: [U('a'), { ...machine('m', 'Undefined'), addr: '10.0.0.4' }],
    wantCreateCalls: [],
    want: {
      kind: 'invalidAvailability',
      reason: 'machine has invalid availability (ID: m, Addr: 10.0.0.4): Undefined',
    },
    wantErrorLog: /machine has invalid availability \(ID: m, Addr: 10\.0\.0\.4\): Undefined/,
  },
  {
    name: 'a possibly used machine with an inventory row is managed',
    provider: [P('x')],
    inventory: [row('x')],
    wantCreateCalls: [],
    want: { kind: 'noCapacity', managed: 1 },
  },
  {
    name: 'a possibly used machine without an inventory row is brought up',
    provider: [P('x')],
    wantCreateCalls: ['x'],
    want: { kind: 'bringUp', managed: 0 },
  },
  {
    name: 'a possibly used machine with the invalid id is free capacity',
    provider: [P('invalid')],
    wantCreateCalls: ['invalid'],
    want: { kind: 'bringUp', managed: 0 },
  },
  {
    name: 'a failed creation is logged and the next machine still comes up',
    provider: [U('a'), U('b')],
    failCreate: ['a'],
    wantCreateCalls: ['a', 'b'],
    want: { kind: 'bringUp' },
    wantFailed: ['a'],
    wantErrorLog: /while creating new machine \(ID: a, Addr: , Availability: KnownUnused\): quota exceeded for a/,
  },
  {
    name: 'an inventory row with an unparseable id is dropped with an error log',
    provider: [K('x')],
    inventory: [row('x'), row('bad:z')],
    wantCreateCalls: [],
    want: { kind: 'noCapacity', managed: 1 },
    wantSkipped: ['bad:z'],
    wantErrorLog: /Inventory row has unparseable provider ID "bad:z"/,
  },
  {
    name: 'a dropped inventory row leaves its provider machine unmatched, which refuses all work',
    provider: [K('x'), K('bad:z')],
    inventory: [row('x'), row('bad:z')],
    wantCreateCalls: [],
    want: { kind: 'safetySwitch', providerOnly: ['bad:z'], inventoryOnly: [] },
    wantSkipped: ['bad:z'],
  },
  {
    name: 'below the limit with nothing available nothing is brought up',
    provider: ids('x', 3).map(K),
    inventory: ids('x', 3).map((id) => row(id)),
    wantCreateCalls: [],
    want: { kind: 'noCapacity', managed: 3, reason: 'No more capacity available.' },
  },
];

function pass(provider: ScriptedProvider, inventory: ScriptedInventory, logger: RecordingLogger, opts: {
  maxCount?: number;
  chunkSize?: number;
  creationLimiter?: Limiter;
  signal?: AbortSignal;
}) {
  return runPoolPass(
    { provider, inventory, session: heldSession(), logger },
    {
      name: 'workers',
      maxCount: opts.maxCount ?? 10,
      chunkSize: opts.chunkSize ?? 20,
      reconcileLimiter: openLimiter(),
      creationLimiter: opts.creationLimiter ?? openLimiter(),
    },
    opts.signal ?? new AbortController().signal,
  );
}

describe('reconcile table', () => {
  it.each(rows)('$name', async (r) => {
    const provider = new ScriptedProvider(r.provider);
    for (const id of r.failCreate ?? []) provider.failCreate.add(id);
    const logger = new RecordingLogger();

    const result = await pass(provider, new ScriptedInventory(r.inventory), logger, r);

    expect(provider.createCalls).toEqual(r.wantCreateCalls);
    expect(result.decision).toMatchObject(r.want);
    const failed = r.wantFailed ?? [];
    expect(result.failed.map((f) => f.id)).toEqual(failed);
    expect(result.created).toEqual(r.wantCreateCalls.filter((id) => !failed.includes(id)));
    expect(result.skippedInventoryRows).toEqual(r.wantSkipped ?? []);
    if (r.wantErrorLog) expect(logger.errors()).toContainEqual(expect.stringMatching(r.wantErrorLog));
    else if (r.want.kind !== 'safetySwitch') expect(logger.errors()).toEqual([]);
  });

  it('cancellation while waiting on the creation limiter returns the abort error and creates nothing', async () => {
    const provider = new ScriptedProvider([U('a'), U('b')]);
    const controller = new AbortController();
    const cancelled = new Error('invocation cancelled');
    const creationLimiter: Limiter = {
      wait: (signal) => {
        controller.abort(cancelled);
        return Promise.reject(signal.reason as Error);
      },
    };

    await expect(
      pass(provider, new ScriptedInventory(), new RecordingLogger(), { creationLimiter, signal: controller.signal }),
    ).rejects.toBe(cancelled);
    expect(provider.createCalls).toEqual([]);
  });

  it('cancellation between two creations stops before the second', async () => {
    const provider = new ScriptedProvider([U('a'), U('b')]);
    const controller = new AbortController();
    let waits = 0;
    const creationLimiter: Limiter = {
      wait: (signal) => {
        if (++waits === 2) controller.abort(new Error('invocation cancelled'));
        return openLimiter().wait(signal);
      },
    };

    await expect(
      pass(provider, new ScriptedInventory(), new RecordingLogger(), { creationLimiter, signal: controller.signal }),
    ).rejects.toThrow('invocation cancelled');
    expect(provider.createCalls).toEqual(['a']);
  });
});
