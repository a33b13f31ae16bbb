import { inject, it, expect } from 'vitest';
import { TableServiceClient } from '@azure/data-tables';

it('global setup provides a reachable Azurite', async () => {
  const conn = inject('azuriteConnection');
  const svc = TableServiceClient.fromConnectionString(conn, { allowInsecureConnection: true });
  await svc.createTable('smoketest');
  const names: string[] = [];
  for await (const t of svc.listTables()) names.push(t.name ?? '');
  expect(names).toContain('smoketest');
});
