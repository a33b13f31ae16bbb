// A host whose clock is far off storage's says so once (src/state/skew-watch.ts): each timed read
// compares the service's clock with the host's; the reads here are made up, the clock injected.
import { describe, expect, it } from 'vitest';
import type { Props } from '../../src/state/entity-table.js';
import type { TimedRow } from '../../src/state/service-clock.js';
import { skewWatchedService, CLOCK_SKEW_WARN_MS } from '../../src/state/skew-watch.js';

const SERVICE_NOW = Date.UTC(2026, 11, 6, 10, 0, 0);
const read = (serviceNow = SERVICE_NOW): TimedRow<Props> => ({ row: { partitionKey: 'p', rowKey: 'r', etag: 'e', props: {} }, writtenAt: serviceNow - 5_000, serviceNow });
const inner = { stamp: () => ({}), times: (r: TimedRow<Props>) => ({ writtenAt: r.writtenAt, now: r.serviceNow }) };

/** The lines said after reads with this host's clock `offsets` ms off the service's, one read each. */
function said(offsets: number[]): string[] {
  const lines: string[] = [];
  let offset = 0;
  const service = skewWatchedService(inner, { now: () => SERVICE_NOW + offset }, (line) => lines.push(line));
  for (const o of offsets) {
    offset = o;
    expect(service.times(read())).toEqual({ writtenAt: SERVICE_NOW - 5_000, now: SERVICE_NOW });
  }
  return lines;
}

describe("a host's clock against storage's", () => {
  it.each([
    { name: 'in step: nothing', offsets: [0, 400, -900], lines: [] },
    { name: '30 s off (within the limit and the Date header\'s second): nothing', offsets: [30_000, -30_900], lines: [] },
    { name: 'an hour ahead: one warning naming it, however many reads', offsets: [3_600_000, 3_600_000, 3_600_200], lines: [/^clock: this host's clock is 1\.0 h ahead of storage's; .*fix this host's clock/] },
    { name: '45 s behind: named in seconds', offsets: [-45_000], lines: [/^clock: this host's clock is 45 s behind storage's/] },
    { name: 'fixed, then off again: said again', offsets: [600_000, 0, 600_000], lines: [/10 min ahead/, /10 min ahead/] },
  ])('$name', ({ offsets, lines }) => {
    const got = said(offsets);
    expect(got).toHaveLength(lines.length);
    lines.forEach((pattern, i) => expect(got[i]).toMatch(pattern));
    expect(CLOCK_SKEW_WARN_MS).toBe(30_000);
  });
});
