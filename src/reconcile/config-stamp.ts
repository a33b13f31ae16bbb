/**
 * One configuration at a time (docs/architecture.md): every write a pass makes to an object's
 * state row (a target's `targets` row, a pool's `~generation` row) carries the writing host's
 * configuration sequence. A host that finds a newer stamp than its own leaves the object alone:
 * no write at all, and its status names the newer configuration. So during a rolling deploy the
 * old instances stop touching an object once a new one has reconciled it, and the two
 * configurations never take turns.
 */
import type { Decision } from './types.js';

export const LEFT_TO_NEWER = 'left to a newer configuration';

/** The stored stamp when it is newer than `mine`; undefined when this host may act. */
export function newerStamp(stored: unknown, mine: number): number | undefined {
  return typeof stored === 'number' && Number.isFinite(stored) && stored > mine ? stored : undefined;
}

/** Whether a configuration newer than this host's runs somewhere (src/queue/newest-config.ts): its sequence, or undefined. */
export type NewerLive = () => Promise<number | undefined>;

/**
 * The newer stamp an object carries, when it counts: only while a newer configuration runs. A
 * stamp left by a one-shot command line run, or by a deployment given up, is not backed by a
 * live `config/newest` row, so it cannot leave an object without anyone to reconcile it.
 */
export async function leftToNewer(stored: unknown, mine: number, newerLive: NewerLive): Promise<number | undefined> {
  const newer = newerStamp(stored, mine);
  if (newer === undefined) return undefined;
  return (await newerLive()) === undefined ? undefined : newer;
}

/** The words status and the log use for an object left alone. */
export function leftToNewerText(seq: number): string {
  return `${LEFT_TO_NEWER} (seq ${seq})`;
}

/** The decision of a pass that found a newer stamp: it wrote nothing. */
export function leftAlone(stored: number, mine: number): Decision {
  return { decision: LEFT_TO_NEWER, reason: `${leftToNewerText(stored)}: this host runs seq ${mine} and writes nothing to it` };
}

export const isLeftAlone = (decision: Decision) => decision.decision === LEFT_TO_NEWER;

