/** Test doubles for the provisioner's ports, built fresh per test. */
import { abortReason } from '../../src/clock.js';
import type { Availability, InventoryRow, Machine, ProviderId, ProviderStatus } from '../../src/provisioner/machine.js';
import type { Inventory, Limiter, Provider, ProvisionerLogger, Session } from '../../src/provisioner/ports.js';

export function machine(id: ProviderId, availability: Availability = 'KnownUnused', failed = false): Machine {
  return { id, addr: '', availability, failed };
}

/** Unused, used, possibly used, and used-but-failed provider machines. */
export const U = (id: ProviderId) => machine(id, 'KnownUnused');
export const K = (id: ProviderId) => machine(id, 'KnownUsed');
export const P = (id: ProviderId) => machine(id, 'PossiblyUsed');
export const KF = (id: ProviderId) => machine(id, 'KnownUsed', true);

export function row(providerId: ProviderId, providerStatus: ProviderStatus | null = 'Running'): InventoryRow {
  return { providerId, providerStatus, address: null, createdAt: 0, updatedAt: 0 };
}

export const ids = (prefix: string, count: number, from = 1): ProviderId[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(from + i).padStart(2, '0')}`);

/** Never waits, but honours an aborted signal as the port requires. */
export const openLimiter = (): Limiter => ({
  wait: (signal) => (signal.aborted ? Promise.reject(abortReason(signal)) : Promise.resolve()),
});

export const heldSession = (): Session => ({ check: () => Promise.resolve() });

/** A provider with a fixed listing; ids starting with "bad:" are ones it cannot parse. */
export class ScriptedProvider implements Provider {
  readonly createCalls: ProviderId[] = [];
  readonly failCreate = new Set<ProviderId>();
  listSignal: AbortSignal | undefined;

  constructor(
    private readonly machines: Machine[] = [],
    private readonly list: (signal: AbortSignal) => Promise<Machine[]> = () => Promise.resolve(this.machines),
  ) {}

  listMachines(signal: AbortSignal): Promise<Machine[]> {
    this.listSignal = signal;
    return this.list(signal);
  }

  createMachine(m: Machine, _signal: AbortSignal): Promise<Machine> {
    this.createCalls.push(m.id);
    if (this.failCreate.has(m.id)) return Promise.reject(new Error(`quota exceeded for ${m.id}`));
    return Promise.resolve({ ...m, availability: 'KnownUsed' });
  }

  parseProviderId(id: ProviderId): boolean {
    return !id.startsWith('bad:');
  }
}

export class ScriptedInventory implements Inventory {
  listSignal: AbortSignal | undefined;

  constructor(
    private readonly rows: InventoryRow[] = [],
    private readonly listRows: (signal: AbortSignal) => Promise<InventoryRow[]> = () => Promise.resolve(this.rows),
  ) {}

  list(signal: AbortSignal): Promise<InventoryRow[]> {
    this.listSignal = signal;
    return this.listRows(signal);
  }
}

/** Resolves only when the signal aborts, then rejects with its reason: a listing that hangs. */
export function hangUntilAborted<T>(signal: AbortSignal): Promise<T> {
  return new Promise<T>((_, reject) => signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true }));
}

export class RecordingLogger implements ProvisionerLogger {
  readonly lines: { level: 'info' | 'warn' | 'error'; message: string }[] = [];
  info(message: string) {
    this.lines.push({ level: 'info', message });
  }
  warn(message: string) {
    this.lines.push({ level: 'warn', message });
  }
  error(message: string) {
    this.lines.push({ level: 'error', message });
  }
  errors(): string[] {
    return this.lines.filter((l) => l.level === 'error').map((l) => l.message);
  }
}

/** Lets pending promise callbacks run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Follows a promise's state without awaiting it. */
export function track<T>(promise: Promise<T>): { readonly state: 'pending' | 'resolved' | 'rejected'; readonly error: unknown } {
  const tracked = { state: 'pending' as 'pending' | 'resolved' | 'rejected', error: undefined as unknown };
  void promise.then(
    () => (tracked.state = 'resolved'),
    (err: unknown) => {
      tracked.state = 'rejected';
      tracked.error = err;
    },
  );
  return tracked;
}
