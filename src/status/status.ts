/**
 * The status view shared by `drover status` and the `status` HTTP function: pools with their
 * cache, instances, inventory and safety switch; targets; probes; recent decisions. Field names
 * follow DESIGN.md's JSON and are only ever added to.
 */
import type { DroverConfig } from '../config/schema.js';
import type { DecisionLog, ForecastLine } from '../state/decisions.js';
import { readProbe, type ProbeStores } from '../probe/async-probe.js';
import { poolStatus, type PoolStatus, type PoolStatusDeps } from './pool-status.js';
import { targetStatus, targetStatusOf, type TargetStatus, type TargetStatusDeps } from './target-status.js';
import type { TargetRecord } from '../scaler/read/target-record.js';
import { listRowPaged } from './paged-list.js';
import { iso } from './time.js';
import { mapBounded } from './bounded.js';

/**
 * Objects read at once: enough that round trips overlap (a pool is two at once), few enough that
 * a fleet of 100 pools does not put 200 reads of up to a megabyte on the service at once (each
 * then waiting behind the others past its deadline).
 */
export const STATUS_CONCURRENCY = 12;

/**
 * From this many targets on, their rows are read in one paged scan of the `targets` table (a
 * request per 1,000 rows) rather than a point read each: 1,000 targets in one or two requests.
 */
export const TARGET_SCAN_FROM = 50;

export interface ProbeStatus {
  target: string;
  inFlight: boolean;
  startedAt: string | null;
  attempts: number;
  lastResult: string | null;
}

export interface DecisionStatus {
  at: string;
  object: string;
  decision: string;
  reason: string;
  error?: string;
  /** The rule that bound a target's decision. */
  boundBy?: string;
  /** What the adaptive policy's forecast made of it: `{ mode, floor, wouldRaise }`. */
  forecast?: ForecastLine;
}

export interface Status {
  pools: PoolStatus[];
  targets: TargetStatus[];
  probes: ProbeStatus[];
  decisions: DecisionStatus[];
}

/** What the status reads: every pool's and target's rows, the probes and the decision log. */
export type StatusDeps = PoolStatusDeps &
  TargetStatusDeps & {
    readonly config: Pick<DroverConfig, 'pools' | 'targets'>;
    readonly decisions: Pick<DecisionLog, 'recent'>;
    readonly stores: { readonly probe: Pick<ProbeStores, 'probes'> };
  };

export async function buildStatus(deps: StatusDeps, options: { decisions?: number } = {}): Promise<Status> {
  const now = deps.clock.now();
  const [pools, targets, probes, decisions] = await Promise.all([
    mapBounded(deps.config.pools, STATUS_CONCURRENCY, (p) => poolStatus(deps, p)),
    targetStatuses(deps),
    mapBounded(
      deps.config.targets.filter((t) => t.activator),
      STATUS_CONCURRENCY,
      async (t): Promise<ProbeStatus | undefined> => {
        const p = await readProbe(deps.stores.probe, t.name);
        return p && { target: t.name, inFlight: p.inFlight && p.deadline > now, startedAt: iso(p.startedAt), attempts: p.attempts, lastResult: p.lastResult ?? null };
      },
    ),
    deps.decisions.recent(now, options.decisions ?? 50),
  ]);
  return {
    pools,
    targets,
    probes: probes.filter((p): p is ProbeStatus => p !== undefined),
    decisions: decisions.map((d) => ({ ...d, at: iso(d.at)! })),
  };
}

/** Every configured target's status: a point read each for a few, one paged scan of the table for a fleet. */
async function targetStatuses(deps: StatusDeps): Promise<TargetStatus[]> {
  const targets = deps.config.targets;
  if (targets.length < TARGET_SCAN_FROM) return mapBounded(targets, STATUS_CONCURRENCY, (t) => targetStatus(deps, t));
  // Rows of targets no longer configured come along and are left out.
  const rows = await listRowPaged<TargetRecord>(deps.stores.targetRecords, 'status');
  const byName = new Map(rows.map((r) => [r.partitionKey, r.props]));
  return mapBounded(targets, STATUS_CONCURRENCY, (t) => targetStatusOf(deps, t, byName.get(t.name)));
}
