/**
 * A one-source target's view of its samples row (the `load` series), for tests that read or
 * write it directly; production reads and writes every source through readSampleSeries and
 * writeSampleSeries.
 */
import { readSampleSeries, writeSampleSeries } from '../../src/load/sample-store.js';
import type { Sample } from '../../src/load/samples.js';
import type { EntityTable } from '../../src/state/entity-table.js';

export async function readSamples(table: EntityTable, target: string, withPush = false) {
  const { series, ...rest } = await readSampleSeries(table, target, ['load'], withPush);
  return { samples: series.load!, ...rest };
}

export function writeSamples(table: EntityTable, target: string, samples: readonly Sample[], now: number, etag: string | undefined, pushTag?: string): Promise<void> {
  return writeSampleSeries(table, target, { load: [...samples] }, now, etag, pushTag);
}
