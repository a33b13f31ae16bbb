import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createStorage, type Storage } from '../../src/state/storage.js';
import type { EntityTable } from '../../src/state/entity-table.js';

/** A fresh set of Drover tables and queues on the shared Azurite, isolated by a random prefix. */
export async function freshStorage(): Promise<Storage> {
  const prefix = `t${randomBytes(5).toString('hex')}`;
  const storage = createStorage({ kind: 'connection', connectionString: inject('azuriteConnection') }, prefix);
  await storage.ensure();
  return storage;
}

/** Another handle on the same tables and queues, with its own clients, as a second Functions instance would have. */
export function sameStorage(storage: Storage): Storage {
  return createStorage({ kind: 'connection', connectionString: inject('azuriteConnection') }, storage.prefix);
}

/** The number of operations of every `$batch` the table's client sends from now on, in order. */
export function countBatches(table: EntityTable): number[] {
  const sizes: number[] = [];
  table.client.pipeline.addPolicy({
    name: `countBatches${randomBytes(3).toString('hex')}`,
    sendRequest: (request, next) => {
      if (request.url.endsWith('$batch')) sizes.push(String(request.body).split('Content-Transfer-Encoding: binary').length - 1);
      return next(request);
    },
  });
  return sizes;
}

/** The method of every request the table's client sends from now on, in order. */
export function countRequests(table: EntityTable): string[] {
  const methods: string[] = [];
  table.client.pipeline.addPolicy({
    name: `countRequests${randomBytes(3).toString('hex')}`,
    sendRequest: (request, next) => {
      methods.push(request.method);
      return next(request);
    },
  });
  return methods;
}
