/**
 * A target as `drover status` shows it, from its row in the targets table: desired and actual
 * scale, the Active condition with its reason and time, the activator's sighting, the last
 * activation latency and any error of the last reconcile. Fields are only ever added.
 */
import type { TargetConfig } from '../config/schema.js';
import type { Runtime } from '../runtime/runtime.js';
import { readTargetRecord } from '../scaler/shell/target-store.js';
import type { TargetRecord } from '../scaler/decide/target-record.js';
import { iso } from './time.js';
import { leftAloneField } from './configuration.js';
import { policyStatus, type PolicyStatus } from './policy-status.js';
import { pushSourceName, pushSourceStatus, type PushSourceStatus } from '../load/push-source.js';
import { readSamples } from '../load/sample-store.js';

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
  /** The target's load sources as last seen; its push source's latest push, and whether a reconcile decided with it. */
  sources?: PushSourceStatus[];
}

/** The push source's entry in `sources`, from the push row and the samples row's record of what was served. */
async function pushSources(rt: Runtime, target: TargetConfig): Promise<{ sources?: PushSourceStatus[] }> {
  const name = pushSourceName(target.load);
  if (name === undefined) return {};
  const [push, samples] = await Promise.all([rt.stores.pushes.read(target.name), readSamples(rt.stores.samples, target.name)]);
  return { sources: [pushSourceStatus(name, push, samples.pushTag)] };
}

export async function targetStatus(rt: Runtime, target: TargetConfig): Promise<TargetStatus> {
  const [r, sources] = await Promise.all([readTargetRecord(rt.table('targets'), target.name), pushSources(rt, target)]);
  return { ...(await targetStatusOf(rt, target, r)), ...sources };
}

/** The status of a target from its row as read (one read of a whole fleet's rows, in status.ts). */
export async function targetStatusOf(rt: Pick<Runtime, 'configuration'>, target: TargetConfig, r: TargetRecord | undefined): Promise<TargetStatus> {
  return {
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
    ...(await leftAloneField(rt, r)),
    // The configuration's pause wins over the row's, as the plan reads them (src/scaler/plan/pause.ts).
    ...(target.paused
      ? { paused: { mode: 'all' as const, replicas: null, since: null, by: 'configuration' as const } }
      : r?.pausedMode
        ? { paused: { mode: r.pausedMode, replicas: r.pausedReplicas ?? null, since: iso(r.pausedAt), by: 'drover pause' as const } }
        : {}),
  };
}
