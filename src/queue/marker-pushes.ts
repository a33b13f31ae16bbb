/**
 * Pending markers the version before this one wrote may hold a pushed value (`load`): pushes now
 * land in the target's push row (src/load/push-store.ts), and new markers hold none. The timer
 * pass hands each such value to the push row, as of the marker's write (a later push there
 * wins), and takes it off the marker, so a value whose message was lost, dropped or never
 * delivered is served all the same, and the marker's message still serves what else it asks.
 */
import type { Props, Row } from '../state/entity-table.js';
import type { Markers } from './sender.js';

export interface MarkerPushDeps {
  markers: Pick<Markers, 'read' | 'dropLoad'>;
  /** Offers the value to the target's push row, as of `landedAt`; undefined when the target has no push source (the value goes). */
  offer(target: string, value: number, landedAt: number | undefined): Promise<unknown> | undefined;
}

/** Adopts the pushed values of the pending rows listed; how many markers gave theirs up. */
export async function adoptMarkerPushes(rows: readonly Row<Props>[], deps: MarkerPushDeps): Promise<number> {
  let adopted = 0;
  for (const row of rows) {
    if (typeof row.props.load !== 'number') continue;
    const [kind, name] = splitKey(row.rowKey);
    if (!kind || !name) continue;
    const read = await deps.markers.read({ kind, name });
    const load = read?.pending.load;
    if (!read || load === undefined) continue;
    if (kind === 'target') await deps.offer(name, load, read.pending.loadAt);
    // Changed since it was read: the next pass looks again.
    if (await deps.markers.dropLoad(read)) adopted++;
  }
  return adopted;
}

function splitKey(key: string): ['target' | 'pool' | undefined, string | undefined] {
  const slash = key.indexOf('/');
  const kind = key.slice(0, slash);
  return [kind === 'target' || kind === 'pool' ? kind : undefined, slash > 0 ? key.slice(slash + 1) : undefined];
}
