// The serviceBus source against the ARM simulator (sim/arm-sources): the active count of a queue
// or subscription through the ARM read of the entity, a deleted queue a failure, the plan's answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServiceBus, type ServiceBusConfig } from '../../src/load/service-bus-source.js';
import { startArmSourcesSim, type ArmSourcesSim } from '../../sim/arm-sources/server.js';
import { planDriver, settingsOf, T0 } from '../scaler/plan-driver.js';

const SUB = '00000000-0000-0000-0000-000000000001';
const QUEUE = `/subscriptions/${SUB}/resourceGroups/rg-bus/providers/Microsoft.ServiceBus/namespaces/orders/queues/jobs`;
const SUBSCRIPTION = `/subscriptions/${SUB}/resourceGroups/rg-bus/providers/Microsoft.ServiceBus/namespaces/orders/topics/events/subscriptions/billing`;

let sim: ArmSourcesSim;
const tokens: string[] = [];
const ports = () => ({
  credential: () => ({ getToken: async (scope: string) => (tokens.push(scope), { token: 'sim-token', expiresOnTimestamp: Date.now() + 3_600_000 }) }),
  azure: { subscriptionId: SUB, resourceManagerEndpoint: sim.url },
});
const read = (config: Partial<ServiceBusConfig>) => readServiceBus({ namespace: 'orders', resourceGroup: 'rg-bus', ...config }, ports(), AbortSignal.timeout(5_000));

beforeAll(async () => {
  sim = await startArmSourcesSim();
});
afterAll(() => sim.close());

describe('serviceBus against the ARM simulator', () => {
  it('37 active messages at 5 per replica → 8; dead-lettered and scheduled messages are not load', async () => {
    sim.setEntity(QUEUE, { activeMessageCount: 37, deadLetterMessageCount: 20, scheduledMessageCount: 3 });
    const reading = await read({ queueName: 'jobs' });
    expect(reading).toEqual({ ok: true, value: 37 });
    expect(tokens.at(-1)).toBe(`${sim.url}/.default`);
    const settings = settingsOf({ load: { source: 'serviceBus', namespace: 'orders', resourceGroup: 'rg-bus', queueName: 'jobs', targetPerReplica: 5 }, minScale: 0, maxScale: 50, maxScaleDownRate: 1000 });
    const step = await planDriver(settings, { current: 2 }).step({ at: T0, load: reading.ok ? reading.value : Number.NaN, ready: 2 });
    expect(step.outcome.desired.kind === 'known' ? step.outcome.desired.desired : undefined).toBe(8);
  });

  it("reads a topic's subscription, the namespace given as a host name", async () => {
    sim.setEntity(SUBSCRIPTION, { activeMessageCount: 12, deadLetterMessageCount: 4 });
    expect(await read({ namespace: 'orders.servicebus.windows.net', topicName: 'events', subscriptionName: 'billing' })).toEqual({ ok: true, value: 12 });
  });

  it('a deleted queue is a failure naming it, not 0', async () => {
    sim.setEntity(QUEUE, { activeMessageCount: 5 });
    sim.deleteEntity(QUEUE);
    const reading = await read({ queueName: 'jobs' });
    expect(reading).toMatchObject({ ok: false, error: expect.stringMatching(/serviceBus orders queue jobs: not found .*404 NotFound/) });
  });

  it('the endpoint key sends the read elsewhere', async () => {
    sim.setEntity(QUEUE, { activeMessageCount: 3 });
    const reading = await readServiceBus({ namespace: 'orders', resourceGroup: 'rg-bus', queueName: 'jobs', endpoint: sim.url }, { ...ports(), azure: { subscriptionId: SUB, resourceManagerEndpoint: 'http://127.0.0.1:1' } }, AbortSignal.timeout(5_000));
    expect(reading).toEqual({ ok: true, value: 3 });
  });
});
