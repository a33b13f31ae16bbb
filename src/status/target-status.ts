/**
 * A target as `drover status` shows it, from its row in the targets table: desired and actual
 * scale, the Active condition with its reason and time, the activator's sighting, the last
 * activation latency and any error of the last reconcile. Fields are only ever added.
 */
import type { TargetConfig } from '../config/schema.js';
import type { HostConfiguration } from '../queue/newest-config.js';
import type { EntityTable } from '../state/entity-table.js';
import type { PushStore } from '../load/push-store.js';
import { readTargetRecord } from '../scaler/read/target-store.js';
import { measuredOf, type TargetRecord } from '../scaler/read/target-record.js';
import { iso } from './time.js';
import { leftAloneField } from './configuration.js';
import { policyStatus, type PolicyStatus } from './policy-status.js';
import { IMPLICIT_LOAD } from '../load/collect.js';
import { readSampleSeries, type SampleSeries } from '../load/sample-store.js';

/** The record's `sourceErrors` (JSON `{ name: error }`); a damaged text reads as none. */
function errorsOf(text: string | undefined): Record<string, string> {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  } catch {
    return {};
  }
}
import { pushSourceName, pushSourceStatus } from '../load/push-served.js';

export interface TargetStatus {
  name: string;
  /** From the load, after rate limits; -1 while no sample is in the window; null before the first reconcile. */
  desiredScale: number | null;
  /** Ready replicas (running instances of a scale set). */
  actualScale: number | null;
  active: 'True' | 'False' | 'Unknown';
  activeSince: string | null;
  reason: string | null;
  /** The target's own scale (spec replicas, capacity) as last seen or set. */
  requestedScale: number | null;
  /** When the activator was first seen in front of the target; null when it is not. */
  activatorSeenSince: string | null;
  /** The last wake from zero: when its first replica was ready and how long it took. */
  lastActivation: { at: string; latencyMs: number } | null;
  /** A wake from zero still waiting for its first ready replica, since when. */
  wakingSince: string | null;
  panicSince: string | null;
  lastError: string | null;
  /** The rule that bound the last decision (`ScaleUpLimit`, `TooFewReplicas`, `Paused`, …); absent when the load's answer stood. */
  boundBy?: string;
  /** `drover pause` (kept in the row) or `paused: true` (the configuration); absent when not paused. */
  paused?: { mode: 'all' | 'scale-in' | 'scale-out'; replicas: number | null; since: string | null; by: 'drover pause' | 'configuration' };
  /** The policy deciding the target: `knative`, or `adaptive` with its start-up delay and headroom. */
  policy?: PolicyStatus;
  /** "left to a newer configuration (seq N)": its row carries a newer stamp than this host's configuration; absent otherwise. */
  leftAlone?: string;
  /** Each load source: its newest value and when it was read (null: none in the samples), and why its last read failed (null: it answered). */
  sources: SourceStatus[];
}

export interface SourceStatus {
  name: string;
  kind: string;
  /** A push source: the latest push and when it landed in storage (null before the first). */
  value: number | null;
  at: string | null;
  error: string | null;
  /** A push source only: whether a reconcile has decided with its latest push. */
  served?: boolean;
  /** A kind whose data lags its read (azureMonitor): when the data behind its newest value was measured. */
  measuredAt?: string;
}

/** What a target's status reads: its row, its samples and its latest push, judged against this host's configuration. */
export interface TargetStatusDeps {
  readonly configuration: HostConfiguration;
  readonly stores: { readonly targetRecords: EntityTable; readonly samples: EntityTable; readonly pushes: Pick<PushStore, 'read'> };
}

export async function targetStatus(deps: TargetStatusDeps, target: TargetConfig): Promise<TargetStatus> {
  const names = (target.load ?? IMPLICIT_LOAD).sources.map((s) => s.name);
  const pushName = pushSourceName(target.load);
  const [r, samples, push] = await Promise.all([
    readTargetRecord(deps.stores.targetRecords, target.name),
    readSampleSeries(deps.stores.samples, target.name, names),
    pushName === undefined ? undefined : deps.stores.pushes.read(target.name),
  ]);
  const status = await targetStatusOf(deps, target, r, samples.series);
  if (pushName === undefined) return status;
  // A push source shows the latest push (the push row), not the newest sample, and whether it was served.
  const pushed = pushSourceStatus(pushName, push, samples.pushTag);
  return { ...status, sources: status.sources.map((s) => (s.name === pushName ? { ...s, value: pushed.value, at: pushed.at, served: pushed.served } : s)) };
}

/**
 * The status of a target from its row as read (one read of a whole fleet's rows, in status.ts),
 * and its samples row when read: without it (a fleet's scan) each source shows no value, only
 * its error.
 */
export async function targetStatusOf(deps: Pick<TargetStatusDeps, 'configuration'>, target: TargetConfig, r: TargetRecord | undefined, samples: SampleSeries = {}): Promise<TargetStatus> {
  const errors = errorsOf(r?.sourceErrors);
  const measured = measuredOf(r);
  return {
    sources: (target.load ?? IMPLICIT_LOAD).sources.map((s) => {
      const newest = samples[s.name]?.at(-1);
      const measuredAt = Object.hasOwn(measured, s.name) ? { measuredAt: iso(measured[s.name])! } : {};
      return { name: s.name, kind: s.source, value: newest?.value ?? null, at: iso(newest?.at), error: errors[s.name] ?? null, ...measuredAt };
    }),
    name: target.name,
    // The row keeps no desired scale while no sample is in the window: shown as -1.
    desiredScale: r?.activeStatus === undefined ? null : (r.desiredScale ?? -1),
    actualScale: r?.actualScale ?? null,
    active: r?.activeStatus ?? 'Unknown',
    activeSince: iso(r?.activeSince),
    reason: r?.activeReason ?? null,
    requestedScale: r?.requestedScale ?? null,
    activatorSeenSince: iso(r?.activatorSeenSince),
    lastActivation:
      r?.lastActivationAt !== undefined && r.lastActivationLatencyMs !== undefined
        ? { at: iso(r.lastActivationAt)!, latencyMs: r.lastActivationLatencyMs }
        : null,
    wakingSince: iso(r?.wakeRequestedAt),
    panicSince: iso(r?.panicStartedAt),
    lastError: r?.lastError ?? null,
    ...(r?.boundBy ? { boundBy: r.boundBy } : {}),
    policy: policyStatus(target, r),
    ...(await leftAloneField(deps, r)),
    // The configuration's pause wins over the row's, as the plan reads them (src/scaler/decide/pause.ts).
    ...(target.paused
      ? { paused: { mode: 'all' as const, replicas: null, since: null, by: 'configuration' as const } }
      : r?.pausedMode
        ? { paused: { mode: r.pausedMode, replicas: r.pausedReplicas ?? null, since: iso(r.pausedAt), by: 'drover pause' as const } }
        : {}),
  };
}
