// The same short trace through `replay` and through real reconciles — Azurite, the Kubernetes
// and activator simulators, the production reconcile on a manual clock — gives the same scale
// sequence. Re-enqueues of the real reconciles are found through the sender's pending markers
// and delivered at their due second, as the queue would.
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

const WEB = { kind: 'Deployment' as const, namespace: 'default', name: 'web' };
const START = Date.UTC(2026, 10, 30, 10, 0, 0);
const READY_DELAY_MS = 3_000;

/** Pushes every 5 s: 45 for 40 s, idle for 60 s, 25 for 30 s (stable window 10 s, grace 5 s). */
function trace(): TraceRow[] {
  const rows: TraceRow[] = [];
  for (let s = 0; s <= 130; s += 5) rows.push({ at: START + s * 1000, target: 'web', load: s < 40 ? 45 : s < 100 ? 0 : 25, line: rows.length + 1 });
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
      targets: [
        {
          name: 'web',
          scaleTargetRef: { kind: 'Deployment', name: 'web' },
          scaleToZero: { stableWindow: '10s', gracePeriod: '5s' },
          activator: { probeUrl: activator.probeUrl },
          load: { source: 'push', targetPerReplica: 10 },
          // No watch inside the waking reconcile: the manual clock does not run by itself.
          activationWatch: '0s',
        },
      ],
    },
    dir,
  );
});
afterAll(async () => {
  await Promise.all([kube.close(), activator.close()]);
});

/** Spec replicas at each change from the starting zero, through the production reconcile driven event by event. */
async function realScaleSequence(rt: Runtime, rows: TraceRow[]): Promise<{ at: number; scale: number }[]> {
  const seen: { at: number; scale: number }[] = [];
  let last = 0;
  const markers = rt.queues.markers!;
  const web = { kind: 'target' as const, name: 'web' };
  const scheduled = new Set<number>();
  const requeues: number[] = [];
  const end = rows.at(-1)!.at;
  let pushes = 0;
  const afterReconcile = async (before: number) => {
    const now = clock.now();
    const spec = kube.inspect(WEB)!.specReplicas ?? 1;
    // The replay's workload loses replicas at once on a scale-down; the simulator is told so.
    if (spec < before) kube.setReadyReplicas(WEB, spec);
    if (spec !== last) seen.push({ at: now, scale: spec });
    last = spec;
    // The object's pending marker: one due time, the earliest asked for.
    const due = (await markers.read(web))?.pending.dueAt;
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
    const before = kube.inspect(WEB)!.specReplicas ?? 1;
    if (takePush) {
      pushes++;
      await reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'forced', load: push.load }, { log: silentLog });
    } else {
      requeues.shift();
      const marker = await markers.read(web);
      if (marker) await markers.consume(marker);
      await reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'requeue' }, { log: silentLog });
    }
    await afterReconcile(before);
  }
  return seen;
}

describe('replay against real reconciles', () => {
  it('the same trace gives the same scale sequence at the same instants', async () => {
    kube.add(WEB, { replicas: 0 });
    activator.setPresent(true);
    const rt = await createRuntime({ configFile, clock, serviceClock: simulatedService(clock), env: {} });
    await rt.storage.ensure();
    const real = await realScaleSequence(rt, trace());

    const config = await loadConfig(configFile);
    // No timer in either: the real run above has none.
    const [web] = await replayTrace(config, trace(), { readyDelayMs: READY_DELAY_MS, initialScale: 0, schedule: parseReplaySchedule('24h') });
    const replayed: { at: number; scale: number }[] = [];
    for (const row of web!.timeline.rows()) if ((replayed.at(-1)?.scale ?? 0) !== row.scale) replayed.push({ at: row.at, scale: row.scale });

    expect(real.map((s) => s.scale)).toEqual(expect.arrayContaining([5, 0, 3]));
    expect(real.length).toBeGreaterThan(3);
    expect(replayed).toEqual(real);
  });
});
