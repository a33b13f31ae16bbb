/**
 * Pending markers in the `leases` table, partition `pending`, one row per object key. Their
 * times are stored as durations after the row's write and read back on the storage service's
 * clock (docs/architecture.md, "Time across hosts"), so a host whose clock is wrong cannot make
 * a marker look due an hour early or late to another.
 */
import type { Clock } from '../clock.js';
import type { EntityTable, Row } from '../state/entity-table.js';
import type { ServiceClock } from '../state/service-clock.js';
import type { Change, Pending } from './pending-plan.js';

export const PENDING_PARTITION = 'pending';
const MAX_ATTEMPTS = 12;

type Decide = (current: Pending | undefined) => Change | undefined;
interface Round {
  decides: Decide[];
  result: Promise<Change | undefined>;
}

type MarkerProps = { dueInMs: number; reason: string; load?: number; loadAt?: number; held: boolean; sentInMs?: number; sentFor?: number };

export interface ReadMarker {
  pending: Pending;
  row: Row<MarkerProps>;
}

export class PendingStore {
  constructor(
    private readonly table: EntityTable,
    private readonly clock: Clock,
    private readonly service: ServiceClock,
  ) {}

  /** Per object: the round being written, and the one gathering decisions to write after it. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly waiting = new Map<string, Round>();

  async read(objectKey: string): Promise<ReadMarker | undefined> {
    const read = await this.table.getTimed<MarkerProps>(PENDING_PARTITION, objectKey);
    if (!read) return undefined;
    const { writtenAt, now } = this.service.times(read);
    // The service's instants on this host's clock.
    const local = (inMs: number) => this.clock.now() + (writtenAt + inMs - now);
    const p = read.row.props;
    const pending: Pending = { dueAt: local(Number(p.dueInMs)), reason: String(p.reason), held: p.held === true };
    // An earlier version's marker says not when its value came: its row's write stands for it.
    if (typeof p.load === 'number') Object.assign(pending, { load: p.load, loadAt: typeof p.loadAt === 'number' ? p.loadAt : writtenAt });
    if (typeof p.sentInMs === 'number' && typeof p.sentFor === 'number') Object.assign(pending, { sentAt: local(p.sentInMs), sentFor: p.sentFor });
    return { pending, row: read.row };
  }

  /**
   * Applies `decide` to the object's marker under its ETag, read again and decided again when
   * another writer got there first. Calls for one object in this process while a write is in
   * flight join the next round: one read and one write for all of them, their decisions applied
   * in order, so a flood for one object costs a write per round trip, not a contended write each.
   * Resolves to the round's change (undefined: nothing to write).
   */
  change(objectKey: string, decide: Decide): Promise<Change | undefined> {
    const queued = this.waiting.get(objectKey);
    if (queued) {
      queued.decides.push(decide);
      return queued.result;
    }
    const round: Round = { decides: [decide], result: Promise.resolve(undefined) };
    this.waiting.set(objectKey, round);
    const previous = this.inFlight.get(objectKey) ?? Promise.resolve();
    round.result = previous.then(() => {
      this.waiting.delete(objectKey);
      return this.applyAll(objectKey, round.decides);
    });
    const settled = round.result.then(() => undefined, () => undefined);
    this.inFlight.set(objectKey, settled);
    void settled.then(() => {
      if (this.inFlight.get(objectKey) === settled) this.inFlight.delete(objectKey);
    });
    return round.result;
  }

  private async applyAll(objectKey: string, decides: Decide[]): Promise<Change | undefined> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      // Always read: another process may have written the marker since this one last saw it.
      const current = await this.read(objectKey);
      let next = current?.pending;
      let send: number | undefined;
      for (const decide of decides) {
        const change = decide(next);
        if (!change) continue;
        next = change.next;
        if (change.send !== undefined) send = change.send;
      }
      if (next === current?.pending) return undefined;
      const written = await this.write(objectKey, current, next);
      if (written) return send === undefined ? { next } : { next, send };
      // Another host wrote it first: spread the retries so contending writers stop colliding.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(500, 10 * 2 ** attempt)));
    }
    throw new Error(`pending marker of ${objectKey}: still contended after ${MAX_ATTEMPTS} attempts`);
  }

  /** The marker written as `next` over `current` (under its ETag), or removed; false when another writer came first. */
  private async write(objectKey: string, current: ReadMarker | undefined, next: Pending | undefined): Promise<boolean> {
    if (next === undefined) return current === undefined || (await this.consume(current));
    const props = this.propsOf(next);
    return (current ? await this.table.replaceIf(current.row, props) : await this.table.create(PENDING_PARTITION, objectKey, props)) !== undefined;
  }

  /** The marker as read without its pushed value (an earlier version's), if it is still as read; false when it changed. */
  async dropLoad(read: ReadMarker): Promise<boolean> {
    const next: Pending = { ...read.pending };
    delete next.load;
    delete next.loadAt;
    return (await this.table.replaceIf(read.row, this.propsOf(next))) !== undefined;
  }

  /** Removes the marker if it is still as read (a request merged since keeps it). */
  consume(read: ReadMarker): Promise<boolean> {
    return this.table.delete(PENDING_PARTITION, read.row.rowKey, read.row.etag);
  }

  /** Forgets the marker's message (its send failed), so the next request sends one. */
  async forgetMessage(objectKey: string, sentFor: number): Promise<void> {
    await this.change(objectKey, (current) => {
      if (!current || current.sentFor !== sentFor) return undefined;
      const next: Pending = { ...current };
      delete next.sentAt;
      delete next.sentFor;
      return { next };
    });
  }

  private propsOf(p: Pending): MarkerProps {
    const now = this.clock.now();
    const props: MarkerProps = { dueInMs: Math.max(0, p.dueAt - now), reason: p.reason, held: p.held, ...this.service.stamp() };
    if (p.load !== undefined) Object.assign(props, { load: p.load }, p.loadAt === undefined ? {} : { loadAt: p.loadAt });
    if (p.sentAt !== undefined && p.sentFor !== undefined) Object.assign(props, { sentInMs: p.sentAt - now, sentFor: p.sentFor });
    return props;
  }
}
