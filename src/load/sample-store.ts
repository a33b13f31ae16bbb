/**
 * Load samples in the `samples` table: one row per target (partition = target name), the
 * samples of the last stable window as compact JSON, bounded as a `SampleWindow` prunes them.
 * Only the target's reconcile writes it, under the target's lease, and only over the row it
 * read: insert-if-absent, else If-Match on the ETag it read. A holder whose lease ran out cannot
 * overwrite the samples a newer holder wrote; it gets SamplesChangedError.
 */
import type { EntityTable, Row } from '../state/entity-table.js';
import { decodeSamples, encodeSamples, type Sample } from './samples.js';
import { PUSH_ROW, pushOf, type PushRead } from './push-store.js';

const ROW = 'samples';


export class SamplesChangedError extends Error {
  override name = 'SamplesChangedError';
  constructor(readonly target: string) {
    super(`target ${target}: its samples were written by another reconcile since they were read; nothing written`);
  }
}

/**
 * The samples row and, `withPush`, the target's push row beside it (push-store.ts): one query of
 * the target's partition, so a push target's reconcile reads both in one request.
 */
async function readRows(table: EntityTable, target: string, withPush: boolean): Promise<{ row: Row | undefined; push?: PushRead }> {
  if (!withPush) return { row: await table.get(target, ROW) };
  const rows = await table.list(target);
  const push = pushOf(rows.find((r) => r.rowKey === PUSH_ROW));
  return { row: rows.find((r) => r.rowKey === ROW), ...(push ? { push } : {}) };
}

const tagOf = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * The samples of a target with several sources, by source name, in the same row: each source's
 * in a property of its own (`data` for one named `load`, `data_NAME` for the others), so one
 * read and one write serve them all and the row's ETag fences them together. At most 16 sources
 * of at most MAX_SAMPLES samples stay well inside an entity's 1 MiB.
 */
export type SampleSeries = Record<string, Sample[]>;

const propertyOf = (name: string) => (name === 'load' ? 'data' : `data_${name}`);

export async function readSampleSeries(
  table: EntityTable,
  target: string,
  names: readonly string[],
  withPush = false,
): Promise<{ series: SampleSeries; etag: string | undefined; pushTag: string | undefined; push?: PushRead }> {
  const { row, push } = await readRows(table, target, withPush);
  const series: SampleSeries = {};
  for (const name of names) {
    const text = row?.props[propertyOf(name)];
    series[name] = decodeSamples(typeof text === 'string' ? text : undefined);
  }
  return { series, etag: row?.etag, pushTag: tagOf(row?.props.pushTag), ...(push ? { push } : {}) };
}

/** Writes every source's samples over the row read with `etag`; a source no longer configured loses its property. */
export async function writeSampleSeries(table: EntityTable, target: string, series: SampleSeries, now: number, etag: string | undefined, pushTag?: string): Promise<void> {
  const props: Record<string, string | number> = { updatedAt: now, ...(pushTag === undefined ? {} : { pushTag }) };
  for (const [name, samples] of Object.entries(series)) props[propertyOf(name)] = encodeSamples(samples);
  const written =
    etag === undefined ? await table.create(target, ROW, props) : await table.replaceIf({ partitionKey: target, rowKey: ROW, etag, props }, props);
  if (!written) throw new SamplesChangedError(target);
}
