/**
 * Which objects the status page draws in full (their section and timeline) and which it only
 * lists, so that the page stays the same size at any fleet size (up to 1,000 pools and 1,000
 * targets) and reads the history of a few objects only. Pure: the status view and the query in,
 * the choice out.
 *
 * The first PAGE_SECTIONS objects by trouble, then by their latest decision, then in the
 * configuration's order are drawn; `?object=pool/NAME` (or `target/NAME`) puts that one first,
 * and `?match=TEXT` keeps only the objects whose key contains TEXT (case-insensitive), drawn and
 * listed by the same rules. Every other object is a row of the list, linked to its own page.
 */
import type { PoolStatus } from '../pool-status.js';
import type { Status } from '../status.js';
import type { TargetStatus } from '../target-status.js';

/** Objects drawn with their section and timeline. */
export const PAGE_SECTIONS = 12;

export interface PageFilter {
  /** `?object=`: this object first (and the decision log filtered to it). */
  object?: string;
  /** `?match=`: only objects whose key contains it, case-insensitive. */
  match?: string;
}

export interface PageSelection {
  /** Object keys (`pool/NAME`, `target/NAME`) drawn in full, in the page's order. */
  drawn: string[];
  /** The other objects the filter keeps, listed in the same order. */
  listed: string[];
  /** Objects the `match` filter left out. */
  hidden: number;
}

type Candidate = { key: string; trouble: number; latest: number; order: number };

export function selectObjects(status: Pick<Status, 'pools' | 'targets' | 'decisions'>, filter: PageFilter = {}, limit = PAGE_SECTIONS): PageSelection {
  const latest = latestDecisions(status.decisions);
  const candidates: Candidate[] = [
    ...status.pools.map((p) => ({ key: `pool/${p.name}`, trouble: poolTrouble(p) })),
    ...status.targets.map((t) => ({ key: `target/${t.name}`, trouble: targetTrouble(t) })),
  ].map((c, order) => ({ ...c, latest: latest.get(c.key) ?? 0, order }));
  const needle = filter.match?.toLowerCase();
  const kept = needle ? candidates.filter((c) => c.key.toLowerCase().includes(needle)) : candidates;
  const ranked = kept.sort((a, b) => first(a, b, filter.object) || b.trouble - a.trouble || b.latest - a.latest || a.order - b.order).map((c) => c.key);
  return { drawn: ranked.slice(0, limit), listed: ranked.slice(limit), hidden: candidates.length - kept.length };
}

/** The object named by `?object=` before every other. */
function first(a: Candidate, b: Candidate, object: string | undefined): number {
  return object === undefined ? 0 : Number(b.key === object) - Number(a.key === object);
}

/** A pool in trouble: a tripped safety switch first, then broken VMs, a backoff or a failing cache. */
export function poolTrouble(pool: PoolStatus): number {
  if (pool.safetySwitch) return 3;
  if ((pool.counts.broken ?? 0) > 0 || pool.backoffUntil || pool.cache?.lastError) return 2;
  return pool.hold || pool.warnings.length > 0 ? 1 : 0;
}

/** A target in trouble: a failing reconcile first, then one waking or not yet known. */
export function targetTrouble(target: TargetStatus): number {
  if (target.lastError) return 2;
  return target.wakingSince || target.panicSince ? 1 : 0;
}

/** Each object's latest decision time among those the status holds (epoch ms). */
function latestDecisions(decisions: Status['decisions']): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of decisions) {
    const at = Date.parse(d.at);
    if (Number.isFinite(at) && at > (out.get(d.object) ?? 0)) out.set(d.object, at);
  }
  return out;
}
