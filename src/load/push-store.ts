/**
 * A target's pushed value, where the reconcile reads its load: a row of its own in the `samples`
 * table (partition = target, row `push`), beside the samples row. A push replaces it whatever is
 * there, so the latest push is the write that landed last in storage: no client clock decides.
 * A reconcile of the target reads it every time (src/load/push-source.ts) and notes the row's
 * ETag in its samples row once it has decided with it, so "served" is shared state too. The
 * queue message that follows a push is only a wake-up: lost, late or twice, the row still holds
 * the value for the next delivery or timer pass (docs/architecture.md, "How a push travels").
 */
import type { EntityTable, Props, Row } from '../state/entity-table.js';
import type { ServiceClock, TimedRow } from '../state/service-clock.js';

export const PUSH_ROW = 'push';

// The value as text: Table Storage would read a number past 2^31 back as another type.
type PushProps = { value: string; landedAt?: number };

/** The push as a reconcile reads it. */
export interface PushRead {
  value: number;
  /** The row's ETag: which push this is. A reconcile that served it keeps it in the samples row. */
  tag: string;
}

export interface StoredPush extends PushRead {
  /** When the push landed, on the storage service's clock (epoch ms). */
  at: number;
}

/** The push a row holds; undefined for no row, or one whose value is not a load. */
export function pushOf(row: Row<Props> | undefined): PushRead | undefined {
  const value = row ? Number(row.props.value) : Number.NaN;
  return row && value >= 0 ? { value, tag: row.etag } : undefined;
}

export class PushStore {
  constructor(
    private readonly table: EntityTable,
    private readonly service: ServiceClock,
  ) {}

  /** The push: the latest one written wins, whoever wrote it. */
  async record(target: string, value: number): Promise<void> {
    await this.table.upsert(target, PUSH_ROW, { value: String(value), ...this.service.stamp() });
  }

  async read(target: string): Promise<StoredPush | undefined> {
    const read = await this.table.getTimed<PushProps>(target, PUSH_ROW);
    const push = pushOf(read?.row);
    return read && push ? { ...push, at: this.landedAt(read) } : undefined;
  }

  /** Per target: offers gathering while one is written; they share the next read and write. */
  private readonly offers = new Map<string, { value: number; landedAt: number | undefined; result: Promise<boolean> }>();
  private readonly offering = new Map<string, Promise<unknown>>();

  /**
   * A value that reached storage at `landedAt` (service clock) by another way: a raw queue
   * message, or a pending marker an earlier version wrote. It becomes the push unless a push that
   * landed later is there already, so a late or repeated message never undoes a newer push.
   * Offers for one target made while one is written join the next write, the latest landed
   * winning: a flood of raw messages costs a read and a write per round trip, not each.
   */
  offer(target: string, value: number, landedAt: number | undefined): Promise<boolean> {
    const waiting = this.offers.get(target);
    if (waiting) {
      if (later(landedAt, waiting.landedAt)) Object.assign(waiting, { value, landedAt });
      return waiting.result;
    }
    const round = { value, landedAt, result: Promise.resolve(false) };
    this.offers.set(target, round);
    round.result = (this.offering.get(target) ?? Promise.resolve()).then(() => {
      this.offers.delete(target);
      return this.write(target, round.value, round.landedAt);
    });
    const settled = round.result.catch(() => undefined);
    this.offering.set(target, settled);
    void settled.then(() => {
      if (this.offering.get(target) === settled) this.offering.delete(target);
    });
    return round.result;
  }

  private async write(target: string, value: number, landedAt: number | undefined): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const read = await this.table.getTimed<PushProps>(target, PUSH_ROW);
      if (read && landedAt !== undefined && this.landedAt(read) >= landedAt) return false;
      const props = { value: String(value), ...(landedAt === undefined ? {} : { landedAt }), ...this.service.stamp() };
      if (read ? await this.table.replaceIf(read.row, props) : await this.table.create(target, PUSH_ROW, props)) return true;
    }
    // Pushes keep landing on this row: each is later than this value.
    return false;
  }

  /** When the row's push reached storage: its own write, or the time an offered value landed. */
  private landedAt(read: TimedRow<PushProps>): number {
    const offered = read.row.props.landedAt;
    return typeof offered === 'number' ? offered : this.service.times(read).writtenAt;
  }
}

/** `a` landed after `b` (a time unknown counts as now, the latest). */
function later(a: number | undefined, b: number | undefined): boolean {
  return a === undefined || (b !== undefined && a >= b);
}
