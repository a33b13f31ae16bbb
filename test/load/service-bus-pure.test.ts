// The serviceBus source's configuration checks, the ARM entity it reads and the count it takes (pure).
import { describe, expect, it } from 'vitest';
import { activeCountOf, checkServiceBus, entityId, serviceBusKind, type ServiceBusConfig } from '../../src/load/service-bus-source.js';

const queue: ServiceBusConfig = { namespace: 'orders', queueName: 'jobs', resourceGroup: 'rg-bus' };

describe('serviceBus checks', () => {
  it.each<{ name: string; config: ServiceBusConfig; want: string[] }>([
    { name: 'a queue with its resource group is fine', config: queue, want: [] },
    { name: 'a topic subscription is fine', config: { namespace: 'orders.servicebus.windows.net', topicName: 't', subscriptionName: 's', resourceGroup: 'rg' }, want: [] },
    { name: 'both queueName and topicName name topicName', config: { ...queue, topicName: 't', subscriptionName: 's' }, want: ['topicName'] },
    { name: 'neither names queueName', config: { namespace: 'orders', resourceGroup: 'rg' }, want: ['queueName'] },
    { name: 'a topic without its subscription', config: { namespace: 'orders', topicName: 't', resourceGroup: 'rg' }, want: ['subscriptionName'] },
    { name: 'no resource group', config: { namespace: 'orders', queueName: 'q' }, want: ['resourceGroup'] },
    { name: 'connectionSetting is refused: the data plane needs Manage', config: { ...queue, connectionSetting: 'SB_CONN' }, want: ['connectionSetting'] },
    { name: 'plain http endpoint off loopback', config: { ...queue, endpoint: 'http://arm.example' }, want: ['endpoint'] },
    { name: 'plain http endpoint on loopback is allowed (the simulator)', config: { ...queue, endpoint: 'http://127.0.0.1:8080' }, want: [] },
  ])('$name', ({ config, want }) => {
    expect(checkServiceBus(config).map((i) => i.path.join('.'))).toEqual(want);
  });
});

describe('the entity read', () => {
  it('names a queue and a subscription by their ARM ids, the namespace by its short name', () => {
    expect(entityId(queue, 'sub')).toBe('/subscriptions/sub/resourceGroups/rg-bus/providers/Microsoft.ServiceBus/namespaces/orders/queues/jobs');
    expect(entityId({ namespace: 'orders.servicebus.windows.net', topicName: 't', subscriptionName: 's', resourceGroup: 'rg' }, 'sub')).toBe(
      '/subscriptions/sub/resourceGroups/rg/providers/Microsoft.ServiceBus/namespaces/orders/topics/t/subscriptions/s',
    );
  });

  it('takes the active count: dead-lettered and scheduled messages are not load', () => {
    const body = { properties: { messageCount: 60, countDetails: { activeMessageCount: 37, deadLetterMessageCount: 20, scheduledMessageCount: 3, transferMessageCount: 0, transferDeadLetterMessageCount: 0 } } };
    expect(activeCountOf(body, 'q')).toEqual({ ok: true, value: 37 });
    expect(activeCountOf({ properties: { messageCount: 5 } }, 'q')).toMatchObject({ ok: false, error: expect.stringMatching(/activeMessageCount/) });
  });

  it('grants Reader on the one entity, found below its namespace', () => {
    expect(serviceBusKind.grants!(queue, { kind: 'kubernetes', ref: { kind: 'Deployment', namespace: 'default', name: 'w' } })).toMatchObject([
      { kind: 'azureRole', roleName: 'Reader', scope: { lookup: { resourceType: 'Microsoft.ServiceBus/namespaces', property: 'name', equals: 'orders' }, suffix: '/queues/jobs' } },
    ]);
  });
});
