/**
 * A pool's wanted count: how many VMs a target that sizes the pool (`scaleTargetRef: { kind:
 * Pool }`) wants. It is the `~wanted` row of the pool's inventory partition, written under the
 * ETag it was read with; the generation is bumped first, so a warm pool pass reads it. A pool
 * without the row fills to `maxCount` as before.
 */
import type { EntityTable, Row } from '../state/entity-table.js';
import { bumpGeneration } from './generation.js';

export const WANTED_KEY = '~wanted';

export type WantedProps = { wanted: number; by: string; at: number };

export function wantedOf(row: Row<Partial<WantedProps>> | undefined): number | undefined {
  const wanted = row?.props.wanted;
  return typeof wanted === 'number' && Number.isInteger(wanted) && wanted >= 0 ? wanted : undefined;
}

/** A write of the wanted count: whether it stood, and the count the row held before (undefined: none). */
export interface WantedWrite {
  written: boolean;
  previous: number | undefined;
}

/**
 * Writes the wanted count unless it is already so; `written` false when another writer came in
 * between (the caller reads again on its next pass).
 */
export async function writeWanted(table: EntityTable, pool: string, wanted: number, by: string, now: number): Promise<WantedWrite> {
  const row = await table.get<WantedProps>(pool, WANTED_KEY);
  const previous = wantedOf(row);
  if (previous === wanted) return { written: true, previous };
  await bumpGeneration(table, pool);
  const props: WantedProps = { wanted, by, at: now };
  const written = row ? await table.replaceIf(row, props) : await table.create(pool, WANTED_KEY, props);
  return { written: written !== undefined, previous };
}

/**
 * The reason of the pool reconcile a raise of the wanted count enqueues. Its pass draws its
 * token from a bucket of its own at the pool's `reconcileRate` (reconcile-pool.ts), not from the
 * one the timer's pass takes: a pool pass runs beside its target's in every timer pass and takes
 * the minute's token before the target has decided, so with one bucket the raise would wait a
 * whole period for the next timer pass. One bucket per period bounds a target that raises on
 * every push to one extra pass per period; a fall waits for the timer as before.
 */
export const RAISE_PREFIX = 'raise: ';
export const isRaise = (reason: string) => reason.startsWith(RAISE_PREFIX);

/** Whether writing `wanted` over the row's `previous` count raises it (a pool without the row holds what it runs: a first count counts as a raise). */
export const raises = (wanted: number, previous: number | undefined) => previous === undefined || wanted > previous;
