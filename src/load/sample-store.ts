/**
 * Load samples in the `samples` table: one row per target (partition = target name), the
 * samples of the last stable window as compact JSON, bounded as a `SampleWindow` prunes them. Only the
 * target's reconcile writes it, under the target's lease; the ETag still guards the write.
 */
import type { EntityTable } from '../state/entity-table.js';
import { decodeSamples, encodeSamples, type Sample } from './samples.js';

const ROW = 'samples';

type SampleProps = { data: string; updatedAt: number };

export async function readSamples(table: EntityTable, target: string): Promise<Sample[]> {
  const row = await table.get<SampleProps>(target, ROW);
  return decodeSamples(row?.props.data);
}

export async function writeSamples(table: EntityTable, target: string, samples: readonly Sample[], now: number): Promise<void> {
  const data = encodeSamples(samples);
  await table.update<SampleProps>(target, ROW, (row) => (row?.props.data === data ? undefined : { data, updatedAt: now }));
}
