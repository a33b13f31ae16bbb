/**
 * The newest configuration any host runs: one row in the `leases` table (partition `config`, row
 * `newest`) with its sequence and hash. Each host raises it to its own configuration when that
 * outranks the stored one (a higher sequence, or the same one and a higher hash), and
 * the host running it renews it while it runs, so the row's age on the storage service's clock
 * says whether that configuration is still live. A host that gets a message for an object its
 * configuration does not have asks it: while a newer configuration is live, the message is
 * put back for it (a newly added target); otherwise it is dropped (a target that was removed).
 */
import type { Clock } from '../clock.js';
import { outranks, type ConfigId } from '../config/sequence.js';
import type { EntityTable } from '../state/entity-table.js';
import type { ServiceClock } from '../state/service-clock.js';

export const CONFIG_PARTITION = 'config';
export const NEWEST_ROW = 'newest';
/** How often the host running the newest configuration renews its row. */
export const NEWEST_RENEW_MS = 5 * 60_000;
/** A newest row not renewed for this long is a configuration no host runs any more (a deploy given up). */
export const NEWEST_LIVE_MS = 3 * NEWEST_RENEW_MS;
/** How long one read of the row answers `newerLive` for this process, so a flood costs few reads. */
const READ_CACHE_MS = 5_000;

/** `hash` is absent from a row written before hashes: the lowest hash (''). */
type NewestProps = { seq: number; hash?: string; by: string };

const idOf = (props: NewestProps): ConfigId => ({ seq: Number(props.seq), hash: typeof props.hash === 'string' ? props.hash : '' });

/**
 * This host's configuration: its sequence and hash (src/config/sequence.ts), stamped on the
 * objects' state rows, and the newest one any host runs. Built once by the composition root.
 */
export interface HostConfiguration {
  readonly seq: number;
  readonly hash: string;
  readonly newest: NewestConfig;
}

export class NewestConfig {
  private announcedAt: number | undefined;
  private announcing: Promise<void> | undefined;
  private cached: { at: number; newer: ConfigId | undefined } | undefined;

  constructor(
    private readonly table: EntityTable,
    private readonly clock: Clock,
    private readonly service: ServiceClock,
    readonly mine: ConfigId,
    private readonly holder: string,
  ) {}

  /**
   * Raises the row to this host's sequence, or renews it when it is this host's: at most once per
   * NEWEST_RENEW_MS per process (one read, and a write only when one is due). Concurrent calls share one.
   */
  announce(): Promise<void> {
    const now = this.clock.now();
    if (this.announcedAt !== undefined && now - this.announcedAt < NEWEST_RENEW_MS) return Promise.resolve();
    this.announcing ??= this.raise()
      .then(() => {
        this.announcedAt = now;
      })
      .finally(() => {
        this.announcing = undefined;
      });
    return this.announcing;
  }

  /** The newest configuration when it outranks this host's and is still live; undefined otherwise. */
  async newerLive(): Promise<ConfigId | undefined> {
    const now = this.clock.now();
    if (this.cached && now - this.cached.at < READ_CACHE_MS) return this.cached.newer;
    const read = await this.table.getTimed<NewestProps>(CONFIG_PARTITION, NEWEST_ROW);
    let newer: ConfigId | undefined;
    if (read && outranks(idOf(read.row.props), this.mine)) {
      const { writtenAt, now: serviceNow } = this.service.times(read);
      if (serviceNow - writtenAt < NEWEST_LIVE_MS) newer = idOf(read.row.props);
    }
    this.cached = { at: now, newer };
    return newer;
  }

  private async raise(): Promise<void> {
    const props: NewestProps = { seq: this.mine.seq, hash: this.mine.hash, by: this.holder, ...this.service.stamp() } as NewestProps;
    const read = await this.table.getTimed<NewestProps>(CONFIG_PARTITION, NEWEST_ROW);
    if (!read) {
      await this.table.create(CONFIG_PARTITION, NEWEST_ROW, props);
      return;
    }
    const stored = idOf(read.row.props);
    if (outranks(stored, this.mine)) return;
    const { writtenAt, now } = this.service.times(read);
    // Another host of the same configuration renewed it lately: nothing to do.
    if (!outranks(this.mine, stored) && now - writtenAt < NEWEST_RENEW_MS / 2) return;
    // Under the ETag: a host with an outranking configuration that wrote in between keeps its row.
    await this.table.replaceIf(read.row, props);
  }
}
