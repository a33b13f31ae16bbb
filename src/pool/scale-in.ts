/**
 * Which VMs a scale-in removes (pure): Drover chooses, never Azure. Broken VMs first, then VMs
 * not yet running, then running VMs by `scaleIn.policy` (`newest` first by default, or
 * `oldest`, by `timeCreated`, ties by instance id), each time from the zone that has the most
 * VMs left, so zones stay balanced. A VM with `protectFromScaleIn` or
 * `protectFromScaleSetActions` is never chosen: with too few unprotected VMs the pool stays
 * above the wanted count, and says so. With `scaleIn.minAge`, a running, healthy VM created
 * less than that before `now` is not chosen either (a broken or not yet running VM always
 * can be): when only such VMs are left the pool stays above the wanted count and says so,
 * rather than choosing another.
 */
import type { CachedInstance } from '../cache/instance.js';
import { isRunningPowerState } from '../cache/power-state.js';
import { isBroken } from './fast-delete.js';

export type ScaleInPolicy = 'newest' | 'oldest';

export interface ScaleInChoice {
  victims: CachedInstance[];
  /** Protected VMs kept although the count is above the wanted one. */
  protectedKept: number;
  /** Running VMs younger than `minAge` that would have been chosen without it. */
  heldByMinAge: number;
  /** With VMs held: when the first of the young VMs comes of age (epoch ms), so a plan may choose differently. */
  heldUntil?: number;
  /** Why the pool stays above the wanted count, one line per reason. */
  lines: string[];
}

/** `scaleIn.minAge` and the pass's clock: a running VM created after `now - minAgeMs` is held. */
export interface MinAge {
  minAgeMs: number;
  now: number;
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

/**
 * `wanted` VMs stay of `candidates` (the pool's managed VMs that are not on their way out).
 * `minAge` absent or 0: no VM is held for its age.
 */
export function chooseVictims(candidates: readonly CachedInstance[], wanted: number, policy: ScaleInPolicy, minAge?: MinAge): ScaleInChoice {
  const excess = candidates.length - wanted;
  if (excess <= 0) return { victims: [], protectedKept: 0, heldByMinAge: 0, lines: [] };
  const open = candidates.filter((i) => !isProtected(i));
  const young = open.filter((i) => isYoung(i, minAge));
  const victims = pickVictims(candidates, young.length === 0 ? open : open.filter((i) => !young.includes(i)), excess, policy);
  // Protection is counted first (as without minAge): minAge holds only what protection left open.
  const protectedKept = Math.max(0, excess - open.length);
  const heldByMinAge = excess - victims.length - protectedKept;
  const lines: string[] = [];
  if (protectedKept > 0) lines.push(`${candidates.length - open.length} protected VMs kept above the wanted ${wanted}`);
  if (heldByMinAge > 0) lines.push(`${heldByMinAge} running VM(s) younger than scaleIn.minAge ${formatAge(minAge!.minAgeMs)} held back above the wanted ${wanted}: none of them is chosen instead (boundBy: MinAge)`);
  if (heldByMinAge === 0) return { victims, protectedKept, heldByMinAge, lines };
  const heldUntil = Math.min(...young.map((i) => i.timeCreated! + minAge!.minAgeMs));
  return { victims, protectedKept, heldByMinAge, heldUntil, lines };
}

/** Only a running, healthy VM with a known creation time is held: a broken one goes before a healthy one. */
function isYoung(i: CachedInstance, minAge: MinAge | undefined): boolean {
  if (minAge === undefined || minAge.minAgeMs <= 0 || rank(i) !== 2 || i.timeCreated === undefined) return false;
  return minAge.now - i.timeCreated < minAge.minAgeMs;
}

const formatAge = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`);

/** Up to `excess` of `open`, by rank, zone balance (zones counted over every candidate) and policy. */
function pickVictims(candidates: readonly CachedInstance[], open: readonly CachedInstance[], excess: number, policy: ScaleInPolicy): CachedInstance[] {
  const byAge = (a: CachedInstance, b: CachedInstance) => {
    const ta = a.timeCreated ?? 0;
    const tb = b.timeCreated ?? 0;
    if (ta !== tb) return policy === 'newest' ? tb - ta : ta - tb;
    return policy === 'newest' ? compareIds(b, a) : compareIds(a, b);
  };
  const victims: CachedInstance[] = [];
  // Zones counted over every VM that stays, protected and young ones included.
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
  return victims;
}
