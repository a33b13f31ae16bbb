import type { TableClient } from '@azure/data-tables';
import { describe, expect, it } from 'vitest';
import { ArmConflictError, ArmNotFoundError, ArmOperationFailedError, ArmPreconditionFailedError, ArmRequestError, CredentialConfigError } from '../../src/azure/errors.js';
import { LimiterBurstError, RateLimitedError } from '../../src/errors/rate-limited.js';
import { isTransient } from '../../src/errors/transient.js';
import { AbortedError, TimeoutError } from '../../src/deadline.js';
import { KubernetesRequestError, TargetConflictError, TargetNotFoundError } from '../../src/kubernetes/errors.js';
import { EntityTable } from '../../src/state/entity-table.js';
import {
  ContentionError,
  StorageConflictError,
  StorageNotFoundError,
  StoragePreconditionFailedError,
  StorageRequestError,
  storageError,
} from '../../src/state/errors.js';
import { LeaseExpiredError } from '../../src/state/leases.js';

describe('isTransient', () => {
  it.each<{ name: string; error: unknown; want: boolean }>([
    { name: 'ARM throttling', error: new RateLimitedError('arm', 'list VMs', 30_000), want: true },
    { name: 'Kubernetes throttling', error: new RateLimitedError('kubernetes', 'Deployment default/web', 0), want: true },
    { name: 'a limiter out of tokens', error: new RateLimitedError('limiter', 'workers/creation', 5_000), want: true },
    { name: 'an ARM conflict', error: new ArmConflictError('set capacity', 'scale set rg/vmss', 'OperationNotAllowed'), want: true },
    { name: 'a stale ARM ETag', error: new ArmPreconditionFailedError('set capacity', 'scale set rg/vmss', '"1"'), want: true },
    { name: 'a failed ARM operation', error: new ArmOperationFailedError('delete instances', 'scale set rg/vmss', 'Canceled'), want: true },
    { name: 'a Kubernetes conflict', error: new TargetConflictError('Deployment default/web'), want: true },
    { name: 'a storage conflict', error: new StorageConflictError('tables/x create a/b', 409, 'exists'), want: true },
    { name: 'a stale storage ETag', error: new StoragePreconditionFailedError('tables/x replace a/b', 412, 'stale'), want: true },
    { name: 'contention', error: new ContentionError('tables/x/a/b', 12), want: true },
    { name: 'a lease lost mid-pass', error: new LeaseExpiredError('pool/workers', 'taken over'), want: true },
    { name: 'ARM unreachable', error: new ArmRequestError('get scale set', undefined, undefined, 'ECONNREFUSED'), want: true },
    { name: 'ARM 503', error: new ArmRequestError('get scale set', 503, undefined, 'unavailable'), want: true },
    { name: 'ARM 403', error: new ArmRequestError('get scale set', 403, 'AuthorizationFailed', 'no role'), want: false },
    { name: 'Kubernetes 500', error: new KubernetesRequestError('etcd is on fire', 500), want: true },
    { name: 'Kubernetes 403', error: new KubernetesRequestError('forbidden', 403), want: false },
    { name: 'storage 503', error: new StorageRequestError('tables/x get a/b', 503, 'busy'), want: true },
    { name: 'storage 403', error: new StorageRequestError('tables/x get a/b', 403, 'denied'), want: false },
    { name: 'a missing scale set', error: new ArmNotFoundError('get scale set', 'scale set rg/vmss'), want: false },
    { name: 'a missing Kubernetes target', error: new TargetNotFoundError('Deployment default/web'), want: false },
    { name: 'a missing storage row', error: new StorageNotFoundError('tables/x list *', 404, 'no table'), want: false },
    { name: 'a credential that must not be used', error: new CredentialConfigError('dev credential for a remote endpoint'), want: false },
    { name: 'a limiter that never grants', error: new LimiterBurstError(0, 'workers/creation'), want: false },
    { name: 'a request that timed out', error: new TimeoutError('ARM GET /subscriptions/x', 2_000), want: true },
    { name: 'work aborted at the pass deadline', error: new AbortedError('the pass ran out of its 45s budget'), want: true },
    { name: 'anything else', error: new TypeError('fetch failed'), want: true },
  ])('$name → $want', ({ error, want }) => {
    expect(isTransient(error)).toBe(want);
  });
});

describe('the closed error sets', () => {
  it('keeps the adapters apart: an ARM conflict is not a Kubernetes conflict, nor the other way round', () => {
    expect(new ArmConflictError('set capacity', 'scale set rg/vmss', undefined)).not.toBeInstanceOf(TargetConflictError);
    expect(new TargetConflictError('Deployment default/web')).not.toBeInstanceOf(ArmConflictError);
    expect(new ArmNotFoundError('get', 'x')).not.toBeInstanceOf(TargetNotFoundError);
  });

  it.each([
    [404, StorageNotFoundError],
    [409, StorageConflictError],
    [412, StoragePreconditionFailedError],
    [503, StorageRequestError],
    [undefined, StorageRequestError],
  ])('translates a storage status %s', (statusCode, type) => {
    const error = storageError(Object.assign(new Error('from the SDK'), { statusCode }), 'tables/x get a/b');
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ statusCode, message: 'tables/x get a/b: from the SDK' });
  });

  it('a table failure other than 404/409/412 leaves the storage layer as a StorageRequestError, the RestError as its cause', async () => {
    const restError = Object.assign(new Error('server busy'), { name: 'RestError', statusCode: 503 });
    const client = { tableName: 'droverleases', url: 'https://a.table.core.windows.net', pipeline: { sendRequest: () => Promise.reject(restError) } } as unknown as TableClient;
    const error = await new EntityTable(client).get('lease', 'pool/workers').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageRequestError);
    expect(error).toMatchObject({ statusCode: 503, cause: restError, message: 'tables/droverleases get lease/pool/workers: server busy' });
  });

  it('a missing row is still no row, not an error; another answer than 200 is a storage error naming the read', async () => {
    const answering = (status: number, bodyAsText: string) =>
      ({ tableName: 'droverleases', url: 'https://a.table.core.windows.net', pipeline: { sendRequest: () => Promise.resolve({ status, bodyAsText, headers: { get: () => undefined } }) } }) as unknown as TableClient;
    expect(await new EntityTable(answering(404, '')).get('lease', 'pool/workers')).toBeUndefined();
    const refused = await new EntityTable(answering(403, '{"odata.error":{"code":"AuthorizationFailure","message":{"value":"This request is not authorized."}}}')).get('lease', 'pool/workers').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StorageRequestError);
    expect(refused).toMatchObject({ statusCode: 403, message: 'tables/droverleases get lease/pool/workers: This request is not authorized.' });
  });
});
