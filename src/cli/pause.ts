/**
 * `drover pause TARGET [--replicas N] [--scale-in | --scale-out]` and `drover resume TARGET`:
 * the pause is kept in the target's row, written under the target's lease (taken once the
 * reconcile holding it lets go: that one's writes all come before the pause), and every
 * instance obeys it at its next reconcile. The write bumps the row's revision, which fences
 * reconciles: a reconcile that read the row before the pause (and had not taken the lease yet)
 * confirms that revision under the lease before it writes a scale, so it writes none; one that
 * held the lease has finished its writes when the command returns. Either way no scale planned
 * without the pause is written after the command returns.
 */
import type { PauseMode } from '../scaler/decide/pause.js';
import { pauseTargetRecord } from '../scaler/read/target-store.js';
import { LEASE_TTL_MS, withLease } from '../state/leases.js';
import type { Clock } from '../clock.js';
import type { DroverConfig } from '../config/schema.js';
import type { EntityTable } from '../state/entity-table.js';
import type { Leases } from '../state/leases.js';

/** How long the verb waits for a reconcile holding the target's lease to finish. */
const LEASE_WAIT_MS = 30_000;
const RETRY_MS = 250;

export type PauseRequest = { kind: 'pause'; mode: PauseMode; replicas?: number } | { kind: 'resume' };

/** `waitedFor`: the holder of a running reconcile the command waited for (its writes came before the pause). */
export type PauseResult = { kind: 'done'; configPaused: boolean; waitedFor?: string } | { kind: 'busy'; heldBy: string; until: number };

/**
 * Why a pause request cannot be recorded while the configuration says `paused: true`, or
 * undefined when it can. That pause writes no scale, so a pin (`--replicas`) or one direction
 * would either be ignored in silence or, once the configuration's pause is lifted, scale the
 * target from a command long forgotten: it is refused, and the operator lifts `paused: true`
 * first. A plain `drover pause` holds as the configuration does and is recorded.
 */
export function configPauseRefusal(request: PauseRequest, configPaused: boolean): string | undefined {
  if (!configPaused || request.kind !== 'pause') return undefined;
  if (request.replicas !== undefined) return `is paused by its configuration (paused: true), which writes no scale: --replicas ${request.replicas} is not recorded; remove paused: true first`;
  if (request.mode !== 'all') return `is paused by its configuration (paused: true), which writes no scale in either direction: --${request.mode} is not recorded; remove paused: true first`;
  return undefined;
}

/** What the verb uses, handed by the CLI's composition root (src/cli/commands.ts). */
export interface PauseDeps {
  readonly config: Pick<DroverConfig, 'targets'>;
  readonly holder: string;
  readonly clock: Clock;
  readonly leases: Leases;
  readonly stores: { readonly targetRecords: EntityTable };
}

export async function setPause(deps: PauseDeps, target: string, request: PauseRequest): Promise<PauseResult> {
  const configPaused = deps.config.targets.find((t) => t.name === target)?.paused === true;
  const holder = `${deps.holder}:drover-${request.kind}`;
  const giveUpAt = deps.clock.now() + LEASE_WAIT_MS;
  let waitedFor: string | undefined;
  for (;;) {
    const leased = await withLease(deps.leases, deps.clock, `target/${target}`, holder, LEASE_TTL_MS, () =>
      pauseTargetRecord(
        deps.stores.targetRecords,
        target,
        request.kind === 'pause'
          ? { pausedMode: request.mode, pausedReplicas: request.replicas, pausedAt: deps.clock.now() }
          : { pausedMode: undefined, pausedReplicas: undefined, pausedAt: undefined },
      ),
    );
    if (leased.ran) return { kind: 'done', configPaused, ...(waitedFor ? { waitedFor } : {}) };
    if (deps.clock.now() >= giveUpAt) return { kind: 'busy', heldBy: leased.heldBy, until: leased.until };
    waitedFor = leased.heldBy;
    await deps.clock.sleep(RETRY_MS);
  }
}
