/**
 * What one target reconcile uses, built once per reconcile from the parts the composition root
 * hands down (`TargetJobDeps`): its row, its samples, its scale port, the activator probes, the
 * reconcile queue, the lease and the clock. The reconcile itself sees only `TargetPassDeps`.
 */
import type { Clock } from '../../clock.js';
import type { TargetConfig } from '../../config/schema.js';
import { errorMessage, type Log } from '../../log.js';
import type { NamedSourceConfig } from '../../config/policy-schema.js';
import { kindOf } from '../../load/registry.js';
import { readSampleSeries, writeSampleSeries, type SampleSeries } from '../../load/sample-store.js';
import type { SourceReader } from '../../load/source-kind.js';
import { sourcePorts, type SourcePortDeps } from '../../load/source-ports.js';
import type { PushRead } from '../../load/push-store.js';
import { pushSourceName } from '../../load/push-served.js';
import { recordActivationLatency } from '../../metrics/activation-latency.js';
import { recordAndFlush } from '../../metrics/export.js';
import { probeActivator } from '../../probe/activator-probe.js';
import type { ReconcileMessage } from '../../queue/messages.js';
import type { ProbeResult } from '../decide/plan-target.js';
import { targetPortFor, type TargetPort, type TargetPortDeps } from '../read/target-port.js';
import { FencedTargetRow } from '../read/target-store.js';
import type { EntityTable } from '../../state/entity-table.js';
import type { ReconcileContext } from '../../job/context.js';
import type { HostConfiguration } from '../../queue/newest-config.js';
import type { QueueSender } from '../../queue/sender.js';
import { offerProbe, type ProbeStores } from '../../probe/async-probe.js';
import type { NewerLive } from '../../job/config-stamp.js';
import type { ConfigId } from '../../config/sequence.js';

/** What a samples row holds besides its samples: the push last served (push-source.ts), and the push row read with it. */
export interface Served<T> {
  value: T;
  pushTag: string | undefined;
  push?: PushRead;
}

export interface TargetPassDeps {
  row: Pick<FencedTargetRow, 'read' | 'write' | 'confirm'>;
  /** The target's samples row: each source's samples by name; `pushTag` on a write: the push it served (absent: the one served before stays recorded). */
  sampleSeries: { read(names: readonly string[]): Promise<Served<SampleSeries>>; write(series: SampleSeries, now: number, pushTag?: string): Promise<void> };
  port: TargetPort;
  /** The reader of one of the target's polled sources, opened by its kind (load/registry.ts). */
  sourceReader(source: NamedSourceConfig): SourceReader;
  /** One synchronous activator probe. */
  probe(): Promise<ProbeResult>;
  /** Offers the asynchronous probe; false when one is already in flight. */
  offerProbe(): Promise<boolean>;
  /** One delayed reconcile of this target at `at` (the queue layer collapses repeats). */
  reconcileAt(message: Omit<ReconcileMessage, 'dueAt' | 'kind' | 'name'>, at: number): Promise<unknown>;
  /** Records the activation latency metric of a wake. */
  recordWake(latencyMs: number): Promise<void>;
  lease: ReconcileContext<unknown>['lease'];
  /** This host's configuration (sequence and hash): the row's stamp is checked against it and written with it. */
  configuration: ConfigId;
  /** An outranking configuration while one runs (its stamp on the row counts only then). */
  newerLive: NewerLive;
  clock: Clock;
  log: Log;
  signal: AbortSignal;
}

/** What a target's pass is built from, handed down from the composition root and scoped to the target (scope.ts). */
export type TargetJobDeps = TargetPortDeps &
  SourcePortDeps & {
    readonly configuration: HostConfiguration;
    readonly queues: Pick<QueueSender, 'reconcileAt'>;
    readonly stores: { readonly targetRecords: EntityTable; readonly samples: EntityTable; readonly probe: ProbeStores };
  };

export async function targetPassDeps(ctx: ReconcileContext<TargetJobDeps>, target: TargetConfig): Promise<TargetPassDeps> {
  const { deps, log, signal } = ctx;
  const port = await targetPortFor(deps, target);
  return {
    row: new FencedTargetRow(deps.stores.targetRecords, target.name, { seq: deps.configuration.seq, hash: deps.configuration.hash }),
    // A target with a push source reads its push row with its samples.
    sampleSeries: sampleSeriesRow(deps.stores.samples, target.name, pushSourceName(target.load) !== undefined),
    port,
    sourceReader: (source) => kindOf(source.source).open!(source, sourcePorts(deps, target)),
    probe: () => probeActivator(target.activator?.probeUrl, { signal }),
    offerProbe: () => offerProbe(deps.stores.probe, target),
    reconcileAt: (message, at) => deps.queues.reconcileAt({ ...message, kind: 'target', name: target.name }, at),
    recordWake: (latencyMs) =>
      recordAndFlush(deps.env, log, (provider) => recordActivationLatency({ target: target.name, kind: port.kind, latencyMs }, provider)).catch((error: unknown) =>
        log.warn(`target ${target.name}: could not record the activation latency metric: ${errorMessage(error)}`),
      ),
    lease: ctx.lease,
    configuration: { seq: deps.configuration.seq, hash: deps.configuration.hash },
    newerLive: () => deps.configuration.newest.newerLive(),
    clock: deps.clock,
    log,
    signal,
  };
}

/** The target's samples row, each source's samples by name, written over the ETag it was read with, keeping the served push it read unless told another. */
export function sampleSeriesRow(table: EntityTable, target: string, withPush: boolean): TargetPassDeps['sampleSeries'] {
  let etag: string | undefined;
  let served: string | undefined;
  return {
    async read(names) {
      const stored = await readSampleSeries(table, target, names, withPush);
      ({ etag, pushTag: served } = stored);
      return { value: stored.series, pushTag: stored.pushTag, ...(stored.push ? { push: stored.push } : {}) };
    },
    write: (series, now, pushTag) => writeSampleSeries(table, target, series, now, etag, pushTag ?? served),
  };
}
