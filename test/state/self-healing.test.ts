// Issue 22: storage that loses its tables and queues under a running host (an in-memory Azurite
// restarted, an account wiped) has them made again, and the host goes on.
import { TableServiceClient } from '@azure/data-tables';
import { QueueServiceClient } from '@azure/storage-queue';
import { afterEach, describe, expect, it, inject } from 'vitest';
import { EntityTable } from '../../src/state/entity-table.js';
import type { Storage } from '../../src/state/storage.js';
import { freshStorage } from '../support/storage.js';
import { eventually, startTargetWorld, WEB, webTarget, type TargetWorld } from '../targets/support.js';
import { pushLoad } from '../../src/queue/push.js';

async function wipe(storage: Storage): Promise<void> {
  const connection = inject('azuriteConnection');
  const tables = TableServiceClient.fromConnectionString(connection, { allowInsecureConnection: true });
  const queues = QueueServiceClient.fromConnectionString(connection);
  await Promise.all([
    ...Object.values(storage.names.tables).map((t) => tables.deleteTable(t)),
    ...Object.values(storage.names.queues).map((q) => queues.getQueueClient(q).deleteIfExists()),
  ]);
}

let world: TargetWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('storage that lost its tables and queues', () => {
  it('has a table made again by the first call that finds it gone', async () => {
    const storage = await freshStorage();
    await wipe(storage);
    const table = new EntityTable(storage.table('leases'));
    expect(await table.create('lease', 'pool/a', { holder: 'me', ttlMs: 1 })).toBeDefined();
    expect((await table.get('lease', 'pool/a'))?.props).toMatchObject({ holder: 'me' });
  });

  it('under a running local host: a push is served again, by the host that was running', async () => {
    world = await startTargetWorld((activator) => [webTarget(activator, { minScale: 1, scaleToZero: undefined, activator: undefined })]);
    const w = world;
    w.kube.add(WEB, { replicas: 1 });
    await w.startHost();
    await wipe(w.rt.storage);
    await pushLoad({ pushes: w.rt.stores.pushes, queues: w.rt.queues }, 'web', 25, 'push');
    expect(await eventually(() => w.kube.inspect(WEB)?.specReplicas === 3, 20_000)).toBe(true);
  }, 40_000);
});
