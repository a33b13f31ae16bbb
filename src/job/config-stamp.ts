/**
 * One configuration at a time (docs/architecture.md): every write a pass makes to an object's
 * state row (a target's `targets` row, a pool's `~generation` row) carries the writing host's
 * configuration (`configSeq` and `configHash`). A host that finds a stamp outranking its own
 * configuration leaves the object alone: no write at all, and its status names the winning
 * configuration. So during a rolling deploy the old instances stop touching an object once a new
 * one has reconciled it, and two configurations never take turns, not even two with the same
 * sequence (the higher hash wins, src/config/sequence.ts).
 */
import { outranks, shortHash, type ConfigId } from '../config/sequence.js';
import type { Decision } from './decision.js';

export const LEFT_TO_NEWER = 'left to a newer configuration';
export const LEFT_TO_OTHER = 'left to another configuration';

/** The fields a stamped row carries. */
export type StampProps = { configSeq?: number; configHash?: string };

export const stampProps = (id: ConfigId): Required<StampProps> => ({ configSeq: id.seq, configHash: id.hash });

/** The configuration a row's stamp names; a stamp from before hashes has the lowest hash (''). */
export function stampOf(props: { configSeq?: unknown; configHash?: unknown } | undefined): ConfigId | undefined {
  const seq = props?.configSeq;
  if (typeof seq !== 'number' || !Number.isFinite(seq)) return undefined;
  return { seq, hash: typeof props?.configHash === 'string' ? props.configHash : '' };
}

/** Whether two stamps name the same configuration. */
export const sameConfig = (a: ConfigId | undefined, b: ConfigId) => a !== undefined && a.seq === b.seq && a.hash === b.hash;

/** The stored stamp when it outranks `mine`; undefined when this host may act. */
export function outrankingStamp(stored: ConfigId | undefined, mine: ConfigId): ConfigId | undefined {
  return stored !== undefined && outranks(stored, mine) ? stored : undefined;
}

/** Whether a configuration outranking this host's runs somewhere (src/queue/newest-config.ts): which, or undefined. */
export type NewerLive = () => Promise<ConfigId | undefined>;

/**
 * The outranking stamp an object carries, when it counts: only while an outranking configuration
 * runs. A stamp left by a one-shot command line run, or by a deployment given up, is not backed
 * by a live `config/newest` row, so it cannot leave an object without anyone to reconcile it.
 */
export async function leftToNewer(stored: ConfigId | undefined, mine: ConfigId, newerLive: NewerLive): Promise<ConfigId | undefined> {
  const newer = outrankingStamp(stored, mine);
  if (newer === undefined) return undefined;
  return (await newerLive()) === undefined ? undefined : newer;
}

/** The words status and the log use for an object left alone. */
export function leftToNewerText(stored: ConfigId, mine: ConfigId): string {
  if (stored.seq === mine.seq) return `left to configuration ${shortHash(stored.hash)} (same sequence ${stored.seq})`;
  return `${LEFT_TO_NEWER} (seq ${stored.seq})`;
}

/** The decision of a pass that found an outranking stamp: it wrote nothing. */
export function leftAlone(stored: ConfigId, mine: ConfigId): Decision {
  const decision = stored.seq === mine.seq ? LEFT_TO_OTHER : LEFT_TO_NEWER;
  return { decision, reason: `${leftToNewerText(stored, mine)}: this host runs seq ${mine.seq} (configuration ${shortHash(mine.hash)}) and writes nothing to it` };
}

export const isLeftAlone = (decision: Decision) => decision.decision === LEFT_TO_NEWER || decision.decision === LEFT_TO_OTHER;
