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

/**
 * Writes the wanted count unless it is already so; false when another writer came in between
 * (the caller reads again on its next pass).
 */
export async function writeWanted(table: EntityTable, pool: string, wanted: number, by: string, now: number): Promise<boolean> {
  const row = await table.get<WantedProps>(pool, WANTED_KEY);
  if (wantedOf(row) === wanted) return true;
  await bumpGeneration(table, pool);
  const props: WantedProps = { wanted, by, at: now };
  const written = row ? await table.replaceIf(row, props) : await table.create(pool, WANTED_KEY, props);
  return written !== undefined;
}
