// The same short trace through `replay` and through real reconciles — Azurite, the Kubernetes
// and activator simulators, the production reconcile on a manual clock — gives the same writes,
// for the plain target and for each policy knob (behavior, scaleDownDelay, initialScale,
// activationScale, schedules, fallback, pause, and sleeping without an activator). Writes are compared as the scale after each
// instant (the replay's timeline keeps one row per instant) and by their number. Re-enqueues of the real reconciles are found
// through the sender's pending markers and delivered at their due second, as the queue would.
//
// Each configuration is its own target (and Deployment) in one configuration file, replayed
// ten minutes after the one before on the one manual clock, so their rows never meet.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { replayTrace } from '../../src/replay/replay.js';
import { parseReplaySchedule } from '../../src/replay/schedule.js';
import type { TraceRow } from '../../src/replay/trace.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startActivatorSim, type ActivatorSim } from '../../sim/activator/server.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';
import { azuriteStorage, tempDir, writeConfig } from '../support/config.js';
import { simulatedService } from '../../src/state/service-clock.js';
import { pushThenReconcile } from '../support/push.js';

const START = Date.UTC(2026, 10, 30, 10, 0, 0);
const READY_DELAY_MS = 3_000;
const SPACING_MS = 10 * 60_000;

interface Variant {
  name: string;
  /** The policy keys of this target, beside the plain target's. */
  policy: (start: number) => Record<string, unknown>;
  /** What the knob must change: the writes differ from the plain target's. */
  changesWrites: boolean;
  /** No activator in front: a push target then sleeps and wakes by KEDA's rules. */
  withoutActivator?: true;
}

/** A cron that fires once, `afterMs` after `start` (on a whole minute), UTC. */
const cronAt = (start: number, afterMs: number) => {
  const at = new Date(start + afterMs);
  return `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
};

const VARIANTS: Variant[] = [
  { name: 'plain', policy: () => ({}), changesWrites: false },
  // A push source's read never fails: the fallback is configured here and must never engage.
  { name: 'behavior', policy: () => ({ behavior: { scaleUp: { policies: [{ type: 'Pods', value: 2, period: '10s' }] }, scaleDown: { stabilizationWindow: '20s' } }, fallback: { failureThreshold: 1, replicas: 9 } }), changesWrites: true },
  { name: 'delay', policy: () => ({ scaleDownDelay: '20s' }), changesWrites: true },
  // The first wake comes up to the initial 7, the second to the activation scale 4 (the load asks for 3).
  { name: 'initial', policy: () => ({ initialScale: 7, activationScale: 4, maxScale: 8 }), changesWrites: true },
  { name: 'schedule', policy: (start) => ({ schedules: [{ cron: cronAt(start, 60_000), duration: '30s', minScale: 6 }] }), changesWrites: true },
  { name: 'paused', policy: () => ({ paused: true }), changesWrites: true },
  // Asleep below the activation threshold 30 (the 25 at the end does not wake it), awake above; to zero 20 s after the last active push.
  { name: 'sleep', policy: () => ({ load: { source: 'push', targetPerReplica: 10, activationThreshold: 30 }, cooldown: '20s' }), changesWrites: true, withoutActivator: true },
];

const startOf = (i: number) => START + i * SPACING_MS;
const refOf = (name: string) => ({ kind: 'Deployment' as const, namespace: 'default', name });

/** Pushes every 5 s: 45 for 40 s, idle for 60 s, 25 for 30 s (stable window 10 s, grace 5 s). */
function trace(target: string, start: number): TraceRow[] {
  const rows: TraceRow[] = [];
  for (let s = 0; s <= 130; s += 5) rows.push({ at: start + s * 1000, target, load: s < 40 ? 45 : s < 100 ? 0 : 25, line: rows.length + 1 });
  return rows;
}

let kube: KubernetesSim;
let activator: ActivatorSim;
let configFile: string;
const clock = new ManualClock(START);
beforeAll(async () => {
  [kube, activator] = await Promise.all([startKubernetesSim({ clock, readyDelayMs: READY_DELAY_MS }), startActivatorSim()]);
  const dir = tempDir();
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, kube.kubeconfigYaml());
  configFile = writeConfig(
    {
      storage: azuriteStorage(),
      kubernetes: { kubeconfig },
      targets: VARIANTS.map((v, i) => ({
        name: v.name,
        scaleTargetRef: { kind: 'Deployment', name: v.name },
        policy: 'knative',
        scaleToZero: { stableWindow: '10s', gracePeriod: '5s' },
        ...(v.withoutActivator ? {} : { activator: { probeUrl: activator.probeUrl } }),
        load: { source: 'push', targetPerReplica: 10 },
        // No watch inside the waking reconcile: the manual clock does not run by itself.
        activationWatch: '0s',
        ...v.policy(startOf(i)),
      })),
    },
    dir,
  );
});
afterAll(async () => {
  await Promise.all([kube.close(), activator.close()]);
});

type Writes = { at: number; scale: number }[];

/** The scale after each instant at which it changed: two writes in one instant read as the last. */
function perInstant(writes: Writes): Writes {
  const out: Writes = [];
  for (const w of writes) {
    if (out.at(-1)?.at === w.at) out.pop();
    if ((out.at(-1)?.scale ?? 0) !== w.scale) out.push(w);
  }
  return out;
}

/** Spec replicas at each change from the starting zero, through the production reconcile driven event by event. */
async function realWrites(rt: Runtime, name: string, rows: TraceRow[]): Promise<Writes> {
  const ref = refOf(name);
  const seen: Writes = [];
  let last = 0;
  const markers = rt.queues.markers!;
  const object = { kind: 'target' as const, name };
  const scheduled = new Set<number>();
  const requeues: number[] = [];
  const end = rows.at(-1)!.at;
  let pushes = 0;
  const afterReconcile = async (before: number) => {
    const now = clock.now();
    const spec = kube.inspect(ref)!.specReplicas ?? 1;
    // The replay's workload loses replicas at once on a scale-down; the simulator is told so.
    if (spec < before) kube.setReadyReplicas(ref, spec);
    if (spec !== last) seen.push({ at: now, scale: spec });
    last = spec;
    // The object's pending marker: one due time, the earliest asked for.
    const due = (await markers.read(object))?.pending.dueAt;
    if (due !== undefined && !scheduled.has(due)) {
      scheduled.add(due);
      requeues.push(due);
    }
    requeues.sort((a, b) => a - b);
  };
  for (;;) {
    const push = rows[pushes];
    const requeue = requeues[0];
    // At one instant the pushed row first, then the re-enqueues due then: the replay's order.
    const takePush = push !== undefined && (requeue === undefined || push.at <= requeue);
    const at = takePush ? push.at : requeue;
    if (at === undefined || at > end) break;
    clock.set(at);
    const before = kube.inspect(ref)!.specReplicas ?? 1;
    if (takePush) {
      pushes++;
      await pushThenReconcile(rt, object, push.load, { reason: 'forced' }, { log: silentLog });
    } else {
      requeues.shift();
      const marker = await markers.read(object);
      if (marker) await markers.consume(marker);
      await reconcileObject(rt, object, { reason: 'requeue' }, { log: silentLog });
    }
    await afterReconcile(before);
  }
  return seen;
}

async function replayed(name: string, rows: TraceRow[]): Promise<{ writes: Writes; count: number }> {
  const config = await loadConfig(configFile);
  // No timer in either: the real run above has none.
  const [result] = await replayTrace(config, rows, { readyDelayMs: READY_DELAY_MS, initialScale: 0, schedule: parseReplaySchedule('24h') }, { target: name });
  const writes: Writes = [];
  for (const row of result!.timeline.rows()) if ((writes.at(-1)?.scale ?? 0) !== row.scale) writes.push({ at: row.at, scale: row.scale });
  return { writes, count: result!.summary.scaleWrites };
}

describe('replay against real reconciles', () => {
  let rt: Runtime;
  const real = new Map<string, Writes>();
  beforeAll(async () => {
    for (const v of VARIANTS) kube.add(refOf(v.name), { replicas: 0 });
    activator.setPresent(true);
    rt = await createRuntime({ configFile, clock, serviceClock: simulatedService(clock), env: {} });
    await rt.storage.ensure();
  });

  it.each(VARIANTS.map((v, i) => ({ ...v, i })))('$name: the same trace gives the same writes at the same instants', async ({ name, i, changesWrites }) => {
    const rows = trace(name, startOf(i));
    const writes = await realWrites(rt, name, rows);
    real.set(name, writes);
    const replay = await replayed(name, rows);
    expect(replay.writes).toEqual(perInstant(writes));
    expect(replay.count).toBe(writes.length);

    const plain = real.get('plain')!;
    // Relative to each trace's start, so the variants compare with the plain target.
    const shape = (w: Writes, start: number) => w.map((x) => [x.at - start, x.scale]);
    if (name === 'plain') {
      expect(writes.map((s) => s.scale)).toEqual(expect.arrayContaining([5, 0, 3]));
      expect(writes.length).toBeGreaterThan(3);
    } else if (name === 'sleep') {
      // Woken by the 45 above its threshold, stepped down after the cooldown and 1 → 0 last; the 25 never wakes it.
      expect(writes.map((w) => w.scale)).toEqual([5, 2, 1, 0]);
      // The last push above the threshold was at 35 s: asleep no sooner than the cooldown after it.
      expect(writes.at(-1)!.at - startOf(i)).toBeGreaterThanOrEqual(35_000 + 20_000);
    } else if (changesWrites) expect(shape(writes, startOf(i))).not.toEqual(shape(plain, START));
    else expect(shape(writes, startOf(i))).toEqual(shape(plain, START));
  });
});
