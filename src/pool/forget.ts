/**
 * `drover machines forget`: removes inventory rows an operator decided are wrong, named as Drover
 * prints them (full id, short id or VM name: machine-id.ts), under the pool's lease (so no pass
 * writes the partition meanwhile) and against a fresh listing from ARM: a machine whose VM ARM
 * lists as running or creating is refused unless forced, bookkeeping rows (`~…`) always are. `--gone` forgets every row whose VM ARM does not list at all.
 */
import { randomUUID } from 'node:crypto';
import type { PoolConfig } from '../config/schema.js';
import { buildInstances } from '../cache/build-instances.js';
import { listingModeFor } from '../cache/orchestration.js';
import type { CachedInstance } from '../cache/instance.js';
import { withLease } from '../state/leases.js';
import type { Clock } from '../clock.js';
import type { ScaleSetApi } from '../azure/scale-set-api.js';
import type { EntityTable } from '../state/entity-table.js';
import type { Leases } from '../state/leases.js';
import { shortId } from '../cache/ids.js';
import { isBookkeepingKey, readInventory } from './inventory.js';
import { matchMachine } from './machine-id.js';
import { tableRowWriter } from './row-writer.js';

export type ForgetRequest = { kind: 'one'; id: string; force: boolean } | { kind: 'gone'; dryRun: boolean };

export type ForgetResult =
  | { kind: 'forgotten'; ids: string[] }
  | { kind: 'wouldForget'; ids: string[] }
  | { kind: 'refused'; reason: string }
  | { kind: 'busy'; heldBy: string; until: number };

/** Holds the lease this long at most; forget is a handful of reads and one write. */
const FORGET_LEASE_MS = 60_000;

/** What the verb uses, handed by the CLI's composition root (src/cli/commands.ts). */
export interface ForgetDeps {
  readonly holder: string;
  readonly clock: Clock;
  readonly leases: Leases;
  readonly stores: { readonly inventory: EntityTable };
  scaleSetApi(): Promise<ScaleSetApi>;
}

export async function forgetMachines(deps: ForgetDeps, pool: PoolConfig, request: ForgetRequest): Promise<ForgetResult> {
  if (request.kind === 'one' && isBookkeepingKey(request.id)) {
    return { kind: 'refused', reason: `${request.id} is the pool's own bookkeeping, not a machine: it is never forgotten by hand` };
  }
  const holder = `${deps.holder}:forget:${randomUUID().slice(0, 8)}`;
  const leased = await withLease(deps.leases, deps.clock, `pool/${pool.name}`, holder, FORGET_LEASE_MS, async (lease): Promise<ForgetResult> => {
    const machines = deps.stores.inventory;
    const [inventory, listed] = await Promise.all([readInventory(machines, pool.name), listScaleSet(deps, pool)]);
    const { rows } = inventory;
    const byId = new Map(listed.map((i) => [i.id, i]));
    let doomed: typeof rows;
    if (request.kind === 'one') {
      const match = matchMachine(request.id, [...rows.map((r) => ({ id: r.rowKey })), ...listed]);
      if (match.kind === 'ambiguous') return { kind: 'refused', reason: `${request.id} names ${match.ids.length} machines (${match.ids.map(shortId).join(', ')}): give the full id` };
      const row = match.kind === 'found' ? rows.find((r) => r.rowKey === match.id) : undefined;
      if (!row) return { kind: 'refused', reason: `pool ${pool.name} has no inventory row for ${match.kind === 'found' ? shortId(match.id) : request.id}` };
      const vm = byId.get(row.rowKey);
      if (vm && (vm.state === 'Running' || vm.state === 'Creating') && !request.force) {
        return { kind: 'refused', reason: `ARM lists ${shortId(vm.id)} as ${vm.state.toLowerCase()}: forgetting it would leave a VM nobody manages (--force to forget it anyway)` };
      }
      doomed = [row];
    } else {
      doomed = rows.filter((r) => !byId.has(r.rowKey));
      if (request.dryRun) return { kind: 'wouldForget', ids: doomed.map((r) => r.rowKey) };
    }
    if (doomed.length === 0) return { kind: 'forgotten', ids: [] };
    await lease.check();
    const results = await tableRowWriter(machines, pool.name, inventory).write(doomed.map((r) => ({ op: 'delete', key: r.rowKey, etag: r.etag })));
    return { kind: 'forgotten', ids: doomed.filter((_, i) => results[i]?.ok).map((r) => r.rowKey) };
  });
  if (!leased.ran) return { kind: 'busy', heldBy: leased.heldBy, until: leased.until };
  return leased.value;
}

/** The scale set's VMs straight from ARM (not the cache: the operator acts on what is there now). */
async function listScaleSet(deps: Pick<ForgetDeps, 'scaleSetApi'>, pool: PoolConfig): Promise<CachedInstance[]> {
  const api = await deps.scaleSetApi();
  const { resourceGroup, name } = pool.scaleSet;
  const scaleSet = await api.getScaleSet(resourceGroup, name);
  const mode = listingModeFor(name, scaleSet.orchestrationMode, pool.enableVmssFlexNodes);
  if (!mode.ok) throw mode.error;
  const flags = { enableFastDeleteOnFailedProvisioning: pool.enableFastDeleteOnFailedProvisioning, enableDetailedCSEMessage: pool.enableDetailedCSEMessage };
  return buildInstances((await api.listVms(resourceGroup, name, mode.mode)).vms, [], flags).instances;
}
