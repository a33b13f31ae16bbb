/**
 * The storage service's clock: the one clock every host shares. Leases and occurrence claims are
 * judged on it (how long ago a row was written, what time it is now), never by comparing one
 * host's clock with another's, so a host whose clock is wrong cannot take a live lease, hold one
 * past its time or claim the future (docs/architecture.md, "Time across hosts").
 */
import type { Clock } from '../clock.js';
import type { Props, TimedRow } from './entity-table.js';

export type { TimedRow };
import { StorageRequestError } from './errors.js';

export interface ServiceClock {
  /** Properties a write carries so that its time can be told later (none when the service stamps its own). */
  stamp(): Props;
  /** When `read` was last written and what time it was when it was read, both on the service's clock. */
  times(read: TimedRow<Props>): { writtenAt: number; now: number };
}

/** The real service: its entity Timestamp and its Date header. */
export const serviceResponses: ServiceClock = {
  stamp: () => ({}),
  times(read) {
    if (!Number.isFinite(read.writtenAt) || !Number.isFinite(read.serviceNow)) {
      throw new StorageRequestError(`tables get ${read.row.partitionKey}/${read.row.rowKey}`, undefined, 'the response carried no Timestamp or Date to judge the row by');
    }
    return { writtenAt: read.writtenAt, now: read.serviceNow };
  },
};

/**
 * For tests that move time by hand: the service's clock is `clock`. Each write stamps its time in
 * the row, since the emulator's own Timestamp would not move with `clock`.
 */
export function simulatedService(clock: Clock): ServiceClock {
  return {
    stamp: () => ({ serviceWrittenAt: clock.now() }),
    times: (read) => ({ writtenAt: Number(read.row.props.serviceWrittenAt ?? clock.now()), now: clock.now() }),
  };
}
