/**
 * One provisioning pass over a pool (the seed's runInSession). Azure Functions runs passes from
 * the timer and the reconcile queue, so there is no endless loop here: the caller runs a pass,
 * writes the decision log from the result, and when the lease is lost (LeaseExpiredError, the
 * seed's expired session) takes it anew on a later pass.
 */
import { abortReason } from '../clock.js';
import { checkProvisionerConfig } from './config.js';
import type { ProvisionerConfig } from './config.js';
import { decideProvisioning } from './decide.js';
import type { ProvisioningDecision } from './decide.js';
import { ListingError } from './errors.js';
import { inventoryMachine } from './machine.js';
import type { InventoryRow, Machine, ProviderId } from './machine.js';
import type { Inventory, Provider, ProvisionerLogger, Session } from './ports.js';

export interface PoolPassDeps {
  provider: Provider;
  inventory: Inventory;
  /** The pool's lease, checked before listing and before each creation. */
  session: Session;
  logger: ProvisionerLogger;
}

export interface PoolProvisioning extends ProvisionerConfig {
  /** For log lines only. */
  name: string;
}

export interface PoolPassResult {
  decision: ProvisioningDecision;
  /** Ids of the machines created, as the provider reported them. */
  created: ProviderId[];
  /** Machines whose creation failed (logged and skipped), by the id they were offered with. */
  failed: { id: ProviderId; error: string }[];
  /** Provider ids of inventory rows dropped because the provider cannot parse them. */
  skippedInventoryRows: ProviderId[];
}

/**
 * Waits on the reconcile limiter, checks the lease, lists both sides in parallel, decides, and
 * brings machines up one by one under the creation limiter.
 *
 * Rejects, doing nothing more, when the config is invalid (ProvisionerConfigError), a limiter
 * rejects or the signal aborts (the limiter's error or the abort reason), the lease is lost (the
 * Session's error, untouched), or a listing fails (ListingError, with the failure as its cause).
 * A creation that fails is logged and skipped. A refusal (invalid availability, safety switch) is
 * a result, not a rejection: see `isRefusal`.
 */
export async function runPoolPass(
  deps: PoolPassDeps,
  pool: PoolProvisioning,
  signal: AbortSignal,
): Promise<PoolPassResult> {
  const config = checkProvisionerConfig(pool);
  const log = prefixed(deps.logger, `pool ${pool.name}: `);

  await config.reconcileLimiter.wait(signal);
  await deps.session.check(signal);

  log.debug?.('Getting provider and inventory machines...');
  const { providerMachines, inventoryRows } = await listBothSides(deps, log, signal);

  const usableRows: InventoryRow[] = [];
  const skippedInventoryRows: ProviderId[] = [];
  for (const row of inventoryRows) {
    if (deps.provider.parseProviderId(row.providerId)) {
      usableRows.push(row);
    } else {
      log.error(`Inventory row has unparseable provider ID ${JSON.stringify(row.providerId)}, skipping it`);
      skippedInventoryRows.push(row.providerId);
    }
  }

  const decision = decideProvisioning(providerMachines, usableRows.map(inventoryMachine), config);
  logDecision(log, decision);
  const result: PoolPassResult = { decision, created: [], failed: [], skippedInventoryRows };
  if (decision.kind !== 'bringUp') return result;

  for (const machine of decision.machines) {
    await config.creationLimiter.wait(signal);
    await deps.session.check(signal);
    try {
      const created = await deps.provider.createMachine(machine, signal);
      log.debug?.(`brought up ${created.id}`);
      result.created.push(created.id);
    } catch (err) {
      // One bad machine must not hold up the rest; an abort or a lost lease stops the next round.
      const message = err instanceof Error ? err.message : String(err);
      log.error(`while creating new machine (${describe(machine)}): ${message}`);
      result.failed.push({ id: machine.id, error: message });
    }
  }
  return result;
}

/** Both listings at once; the first failure aborts the other, as the seed's sub-context does. */
async function listBothSides(
  deps: PoolPassDeps,
  log: ProvisionerLogger,
  signal: AbortSignal,
): Promise<{ providerMachines: Machine[]; inventoryRows: InventoryRow[] }> {
  const listing = new AbortController();
  const forwardAbort = () => listing.abort(signal.reason);
  if (signal.aborted) forwardAbort();
  else signal.addEventListener('abort', forwardAbort, { once: true });

  const side = async <T>(name: 'provider' | 'inventory', list: () => Promise<T[]>): Promise<T[]> => {
    try {
      const items = await list();
      log.debug?.(`Got ${items.length} machines in ${name}.`);
      return items;
    } catch (err) {
      listing.abort(new Error(`listing aborted: the ${name} listing failed`, { cause: err }));
      throw new ListingError(name, err);
    }
  };

  try {
    const [providerMachines, inventoryRows] = await Promise.all([
      side('provider', () => deps.provider.listMachines(listing.signal)),
      side('inventory', () => deps.inventory.list(listing.signal)),
    ]);
    return { providerMachines, inventoryRows };
  } catch (err) {
    if (signal.aborted) throw abortReason(signal);
    throw err;
  } finally {
    signal.removeEventListener('abort', forwardAbort);
    listing.abort();
  }
}

function logDecision(log: ProvisionerLogger, decision: ProvisioningDecision): void {
  switch (decision.kind) {
    case 'invalidAvailability':
      log.error(decision.reason);
      return;
    case 'safetySwitch':
      for (const id of decision.providerOnly) {
        log.error(`Provider machine has no corresponding machine in inventory. (PID: ${id})`);
      }
      for (const id of decision.inventoryOnly) {
        log.error(`Provider machine referred to in inventory but missing in provider. (PID: ${id})`);
      }
      log.error("Something's very wrong. Bailing early and refusing to do any work.");
      return;
    case 'atLimit':
    case 'noCapacity':
    case 'bringUp':
      log.debug?.(`Total managed machines: ${decision.managed}`);
      log.debug?.(decision.reason);
  }
}

function describe(machine: Machine): string {
  return `ID: ${machine.id}, Addr: ${machine.addr}, Availability: ${machine.availability}`;
}

function prefixed(logger: ProvisionerLogger, prefix: string): ProvisionerLogger {
  return {
    debug: (message) => logger.debug?.(prefix + message),
    info: (message) => logger.info(prefix + message),
    warn: (message) => logger.warn(prefix + message),
    error: (message) => logger.error(prefix + message),
  };
}
