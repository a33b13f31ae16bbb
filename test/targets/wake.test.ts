// Waking a target from zero: a forced reconcile with load brings it back within that one
// reconcile, the activation latency is measured against the simulator's scripted readiness
// and reported in the decision log, `drover status` and the metric; redelivered reconcile and
// probe messages change nothing twice; dry runs write nothing; a vanished target is reported.
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import azureFunctions from '@azure/functions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { probeQueue as probeRegistration, reconcileQueue as reconcileRegistration } from '../../src/handlers/registrations.js';
import { silentLog } from '../../src/log.js';
import { ACTIVATION_LATENCY_METRIC } from '../../src/metrics/activation-latency.js';
import { offerProbe, readProbe } from '../../src/probe/async-probe.js';
import { readSamples } from '../support/samples.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { readTargetRecord } from '../../src/scaler/read/target-store.js';
import { targetStatus } from '../../src/status/target-status.js';
import { eventually, startTargetWorld, WEB, webTarget, type TargetWorld } from './support.js';
import { pushThenReconcile } from '../support/push.js';
import { pushLoad } from '../../src/queue/push.js';

const context = (name: string) => new azureFunctions.InvocationContext({ functionName: name, logHandler: () => undefined });
const READY_DELAY_MS = 3_000;
/** The queue functions as the hosts call them, on the world's runtime. */
const reconcileQueue = (message: unknown, ctx: azureFunctions.InvocationContext) => reconcileRegistration.handler(world!.rt, message, ctx);
const probeQueue = (message: unknown, ctx: azureFunctions.InvocationContext) => probeRegistration.handler(world!.rt, message, ctx);

const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
beforeAll(() => {
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});
// The test files share worker processes: leave no global meter provider to the next file.
afterAll(() => {
  metrics.disable();
});

let world: TargetWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('waking a target from zero', () => {
  it('a forced reconcile with load 25 (target 10) brings it to 3 and times the wake within 10 % of the readiness delay', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)], { readyDelayMs: READY_DELAY_MS });
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 0 });
    await world.startHost();
    const asked = Date.now();
    await pushLoad({ pushes: rt.stores.pushes, queues: rt.queues }, 'web', 25, 'forced');

    // The queue worker may be in its idle back-off (up to maxPollingInterval, 2 s) when the message lands.
    expect(await eventually(() => kube.inspect(WEB)?.specReplicas === 3, 6_000)).toBe(true);
    expect(await eventually(async () => (await targetStatus(rt, rt.config.targets[0]!)).lastActivation !== null, READY_DELAY_MS + 3_000)).toBe(true);
    const status = await targetStatus(rt, rt.config.targets[0]!);
    const latency = status.lastActivation!.latencyMs;
    expect(Math.abs(latency - READY_DELAY_MS)).toBeLessThanOrEqual(READY_DELAY_MS / 10);
    expect(latency).toBeLessThanOrEqual(Date.now() - asked);
    expect(status).toMatchObject({ desiredScale: 3, actualScale: 3, active: 'True', wakingSince: null });

    // The decision is written once the reconcile has let go of its lease, just after the status.
    const logged = async () => (await rt.decisions.recent(Date.now(), 20)).some((d) => d.object === 'target/web' && d.reason.includes(`woke from zero in ${latency} ms`));
    expect(await eventually(logged, 3_000)).toBe(true);

    await reader.forceFlush();
    const histogram = exporter
      .getMetrics()
      .flatMap((m) => m.scopeMetrics.flatMap((s) => s.metrics))
      .find((m) => m.descriptor.name === ACTIVATION_LATENCY_METRIC) as HistogramMetricData | undefined;
    const point = histogram?.dataPoints.find((p) => p.attributes['drover.target'] === 'web');
    expect(point?.value).toMatchObject({ count: 1, sum: latency });
    expect(histogram?.descriptor.unit).toBe('ms');
  });

  it('a redelivered reconcile message changes nothing twice', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 0 });
    const message = { kind: 'target', name: 'web', reason: 'forced', load: 25 };
    // Drover's first look adopts the target at zero and writes nothing to it.
    await reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'timer' }, { log: silentLog });
    expect(kube.count('patchScale')).toBe(0);

    await reconcileQueue(message, context('reconcileQueue'));
    expect(kube.inspect(WEB)?.specReplicas).toBe(3);
    const first = await readTargetRecord(rt.table('targets'), 'web');
    const { samples } = await readSamples(rt.table('samples'), 'web');

    const queued = async () => (await rt.storage.queue('reconcile').getProperties()).approximateMessagesCount;
    const queuedAfterFirst = await queued();
    await reconcileQueue(message, context('reconcileQueue'));
    expect(kube.count('patchScale')).toBe(1);
    // No second chain of follow-up reconciles either.
    expect(await queued()).toBe(queuedAfterFirst);
    expect((await readSamples(rt.table('samples'), 'web')).samples).toEqual(samples);
    const second = await readTargetRecord(rt.table('targets'), 'web');
    expect(second).toMatchObject({
      activeStatus: first?.activeStatus,
      activeSince: first?.activeSince,
      lastActivationAt: first?.lastActivationAt,
      lastActivationLatencyMs: first?.lastActivationLatencyMs,
      lastScaledAt: first?.lastScaledAt,
    });
    const decisions = await rt.decisions.recent(Date.now(), 10);
    expect(decisions.filter((d) => d.reason.includes('woke from zero'))).toHaveLength(1);
  });

  it('a redelivered probe message probes once and sends one next attempt, however it arrives', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)]);
    const { rt, activator } = world;
    activator.setPresent(false);
    expect(await offerProbe(rt.stores.probe, rt.config.targets[0]!)).toBe(true);
    expect(await offerProbe(rt.stores.probe, rt.config.targets[0]!)).toBe(false);
    const { deadline } = (await readProbe(rt.stores.probe, 'web'))!;
    const probeQueueClient = rt.storage.queue('probe');
    const queued = async () => (await probeQueueClient.getProperties()).approximateMessagesCount;
    expect(await queued()).toBe(1);

    const attempt0 = { target: 'web', attempt: 0, deadline };
    await probeQueue(attempt0, context('probeQueue'));
    await probeQueue(attempt0, context('probeQueue'));
    expect(activator.probes).toBe(1);
    expect(await readProbe(rt.stores.probe, 'web')).toMatchObject({ attempts: 1, inFlight: true });
    expect(await queued()).toBe(2);

    const attempt1 = { ...attempt0, attempt: 1 };
    await Promise.all([probeQueue(attempt1, context('probeQueue')), probeQueue(attempt1, context('probeQueue'))]);
    expect(activator.probes).toBe(2);
    expect(await readProbe(rt.stores.probe, 'web')).toMatchObject({ attempts: 2 });
    expect(await queued()).toBe(3);
  });

  it('a dry run decides and writes nothing', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)]);
    const { kube, rt } = world;
    kube.add(WEB, { replicas: 0 });
    const target = { kind: 'target', name: 'web' } as const;
    const first = await reconcileObject(rt, target, { reason: 'dry run', dryRun: true }, { log: silentLog });
    expect(first).toMatchObject({ status: 'done', decision: { decision: 'would be adopted' } });
    expect(await readTargetRecord(rt.table('targets'), 'web')).toBeUndefined();

    await reconcileObject(rt, target, { reason: 'timer' }, { log: silentLog });
    const adopted = await readTargetRecord(rt.table('targets'), 'web');
    const queued = async () => (await rt.storage.queue('reconcile').getProperties()).approximateMessagesCount;
    const queuedBefore = await queued();
    const outcome = await pushThenReconcile(rt, target, 25, { reason: 'dry run', dryRun: true }, { log: silentLog });
    expect(outcome).toMatchObject({ status: 'done', decision: { decision: 'would scale 0 → 3' } });
    expect(kube.count('patchScale')).toBe(0);
    expect(await readTargetRecord(rt.table('targets'), 'web')).toEqual(adopted);
    expect((await readSamples(rt.table('samples'), 'web')).samples).toEqual([]);
    expect(await queued()).toBe(queuedBefore);
  });

  it('a target that does not exist is reported as an error and not retried', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator)]);
    const { rt } = world;
    const outcome = await reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'timer' }, { log: silentLog });
    expect(outcome).toMatchObject({ status: 'failed', decision: { decision: 'target missing', error: expect.stringMatching(/Deployment default\/web not found/) } });
    expect(outcome.status === 'failed' && outcome.decision?.transient).toBeFalsy();
    // The queue function returns normally: the message is done with, not retried into the poison queue.
    await expect(reconcileQueue({ kind: 'target', name: 'web', reason: 'forced' }, context('reconcileQueue'))).resolves.toMatchObject({ status: 'failed' });
    expect((await targetStatus(rt, rt.config.targets[0]!)).lastError).toMatch(/not found/);
  });
});
