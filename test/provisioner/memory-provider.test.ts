import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { MemoryProvider } from '../../src/provisioner/memory-provider.js';

const signal = () => new AbortController().signal;

describe('MemoryProvider', () => {
  it('offers its whole capacity as unused machines with fresh UUIDs on every listing', async () => {
    const provider = new MemoryProvider({ capacity: 3 });
    const first = await provider.listMachines(signal());
    const second = await provider.listMachines(signal());
    expect(first.map((m) => m.availability)).toEqual(['KnownUnused', 'KnownUnused', 'KnownUnused']);
    for (const m of first) {
      expect(provider.parseProviderId(m.id)).toBe(true);
      expect(isIP(m.addr)).toBe(6);
    }
    expect(new Set([...first, ...second].map((m) => m.id)).size).toBe(6);
  });

  it('a created machine is listed as used, beside the capacity still free', async () => {
    const clock = new ManualClock();
    const provider = new MemoryProvider({ capacity: 3, clock });
    const [offered] = await provider.listMachines(signal());
    const created = await provider.createMachine(offered!, signal());

    expect(created).toEqual({ ...offered, availability: 'KnownUsed' });
    const listed = await provider.listMachines(signal());
    expect(listed.filter((m) => m.availability === 'KnownUsed')).toEqual([created]);
    expect(listed.filter((m) => m.availability === 'KnownUnused')).toHaveLength(2);
    expect(provider.createdIds).toEqual([offered!.id]);
    expect(await provider.inventory.list(signal())).toEqual([
      { providerId: offered!.id, providerStatus: 'Running', address: offered!.addr, createdAt: clock.now(), updatedAt: clock.now() },
    ]);
  });

  it('refuses a creation once no capacity is left', async () => {
    const provider = new MemoryProvider({ capacity: 1 });
    const [a, b] = [...(await provider.listMachines(signal())), ...(await provider.listMachines(signal()))];
    await provider.createMachine(a!, signal());
    await expect(provider.createMachine(b!, signal())).rejects.toThrow('no capacity left');
    expect(provider.inventory.rows).toHaveLength(1);
  });

  it('refuses to create the same machine twice', async () => {
    const provider = new MemoryProvider({ capacity: 2 });
    const [a] = await provider.listMachines(signal());
    await provider.createMachine(a!, signal());
    await expect(provider.createMachine(a!, signal())).rejects.toThrow(`machine ${a!.id} is already in use`);
  });

  it.each([
    { name: 'a UUID parses', id: '0b0e4ad1-7c1b-4f0e-9a52-6a5b4c3d2e1f', want: true },
    { name: 'a name does not parse', id: 'vmss-workers_3', want: false },
    { name: 'the empty id does not parse', id: '', want: false },
  ])('$name', ({ id, want }) => {
    expect(new MemoryProvider({ capacity: 1 }).parseProviderId(id)).toBe(want);
  });

  it('honours an aborted signal', async () => {
    const provider = new MemoryProvider({ capacity: 1 });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(provider.listMachines(controller.signal)).rejects.toThrow('stop');
    await expect(provider.inventory.list(controller.signal)).rejects.toThrow('stop');
  });
});
