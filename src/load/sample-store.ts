/**
 * Load samples in the `samples` table: one row per target (partition = target name), the
 * samples of the last stable window as compact JSON, bounded as a `SampleWindow` prunes them.
 * Only the target's reconcile writes it, under the target's lease, and only over the row it
 * read: insert-if-absent, else If-Match on the ETag it read. A holder whose lease ran out cannot
 * overwrite the samples a newer holder wrote; it gets SamplesChangedError.
 */
import type { EntityTable } from '../state/entity-table.js';
import { decodeSamples, encodeSamples, type Sample } from './samples.js';

const ROW = 'samples';

type SampleProps = { data: string; updatedAt: number };

export class SamplesChangedError extends Error {
  override name = 'SamplesChangedError';
  constructor(readonly target: string) {
    super(`target ${target}: its samples were written by another reconcile since they were read; nothing written`);
  }
}

export interface StoredSamples {
  samples: Sample[];
  /** The row's ETag; undefined when there is no row yet. */
  etag: string | undefined;
}

export async function readSamples(table: EntityTable, target: string): Promise<StoredSamples> {
  const row = await table.get<SampleProps>(target, ROW);
  return { samples: decodeSamples(row?.props.data), etag: row?.etag };
}

/** Writes the samples over the row read with `etag` (none: the row must not exist yet). */
export async function writeSamples(table: EntityTable, target: string, samples: readonly Sample[], now: number, etag: string | undefined): Promise<void> {
  const props: SampleProps = { data: encodeSamples(samples), updatedAt: now };
  const written =
    etag === undefined
      ? await table.create(target, ROW, props)
      : await table.replaceIf({ partitionKey: target, rowKey: ROW, etag, props }, props);
  if (!written) throw new SamplesChangedError(target);
}
