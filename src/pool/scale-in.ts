/**
 * Which VMs a scale-in removes (pure): Drover chooses, never Azure. Broken VMs first, then VMs
 * not yet running, then running VMs by `scaleIn.policy` (`newest` first by default, or
 * `oldest`, by `timeCreated`, ties by instance id), each time from the zone that has the most
 * VMs left, so zones stay balanced. A VM with `protectFromScaleIn` or
 * `protectFromScaleSetActions` is never chosen: with too few unprotected VMs the pool stays
 * above the wanted count, and says so.
 */
import type { CachedInstance } from '../cache/instance.js';
import { isRunningPowerState } from '../cache/power-state.js';
import { isBroken } from './fast-delete.js';

export type ScaleInPolicy = 'newest' | 'oldest';

export interface ScaleInChoice {
  victims: CachedInstance[];
  /** Protected VMs kept although the count is above the wanted one. */
  protectedKept: number;
  line: string | undefined;
}

export const isProtected = (i: CachedInstance) => i.protectFromScaleIn === true || i.protectFromScaleSetActions === true;

/** 0: broken, 1: not yet running, 2: running. */
function rank(i: CachedInstance): number {
  if (isBroken(i) || i.errorInfo !== null) return 0;
  return i.state === 'Running' && isRunningPowerState(i.powerState as Parameters<typeof isRunningPowerState>[0]) ? 2 : 1;
}

/** Numeric instance ids compare as numbers (Uniform), names as text (Flexible). */
export function compareIds(a: CachedInstance, b: CachedInstance): number {
  const x = a.id.slice(a.id.lastIndexOf('/') + 1);
  const y = b.id.slice(b.id.lastIndexOf('/') + 1);
  if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Number(x) - Number(y);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `keep` VMs stay of `candidates` (the pool's managed VMs that are not on their way out). */
export function chooseVictims(candidates: readonly CachedInstance[], wanted: number, policy: ScaleInPolicy): ScaleInChoice {
  const excess = candidates.length - wanted;
  if (excess <= 0) return { victims: [], protectedKept: 0, line: undefined };
  const open = candidates.filter((i) => !isProtected(i));
  const byAge = (a: CachedInstance, b: CachedInstance) => {
    const ta = a.timeCreated ?? 0;
    const tb = b.timeCreated ?? 0;
    if (ta !== tb) return policy === 'newest' ? tb - ta : ta - tb;
    return policy === 'newest' ? compareIds(b, a) : compareIds(a, b);
  };
  const victims: CachedInstance[] = [];
  // Zones counted over every VM that stays, protected ones included.
  const left = new Map<string, number>();
  for (const i of candidates) left.set(i.zone ?? '', (left.get(i.zone ?? '') ?? 0) + 1);
  const pool = [...open];
  while (victims.length < excess && pool.length > 0) {
    const best = Math.min(...pool.map(rank));
    const tier = pool.filter((i) => rank(i) === best);
    // From the zone with the most VMs left (ties: the zone name), the first by policy.
    const zoneOf = (i: CachedInstance) => i.zone ?? '';
    tier.sort((a, b) => (left.get(zoneOf(b)) ?? 0) - (left.get(zoneOf(a)) ?? 0) || (zoneOf(a) < zoneOf(b) ? -1 : zoneOf(a) > zoneOf(b) ? 1 : 0) || byAge(a, b));
    const victim = tier[0]!;
    victims.push(victim);
    left.set(zoneOf(victim), (left.get(zoneOf(victim)) ?? 1) - 1);
    pool.splice(pool.indexOf(victim), 1);
  }
  const short = excess - victims.length;
  const protectedCount = candidates.length - open.length;
  const line = short > 0 ? `${protectedCount} protected VMs kept above the wanted ${wanted}` : undefined;
  return { victims, protectedKept: short > 0 ? short : 0, line };
}
