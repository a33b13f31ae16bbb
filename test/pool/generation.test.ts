/**
 * When the last plan that changed nothing still stands (pure), and which plans change nothing.
 */
import { describe, expect, it } from 'vitest';
import { stillWarm, warmRecordOf, type WarmRecord, type WarmView } from '../../src/pool/generation.js';
import { changesNothing, noActions, type PoolPlan } from '../../src/pool/plan.js';

const record: WarmRecord = { inventory: 7, cache: 9, capacity: 3, etag: 'e1', decision: { decision: 'at limit', reason: '3 of 3' } };
const view: WarmView = { inventory: 7, cache: 9, capacity: 3, etag: 'e1', cacheFresh: true, now: 1_000 };

describe('a warm record', () => {
  it('stands while both generations, the capacity and the ETag are what it saw and the cache is fresh', () => {
    expect(stillWarm(record, view)).toBe(true);
  });

  it.each<[string, Partial<WarmView>]>([
    ['the inventory was written', { inventory: 8 }],
    ['the cache was written', { cache: 10 }],
    ['the capacity moved', { capacity: 2 }],
    ['someone wrote the scale set', { etag: 'e2' }],
    ['the cache expired', { cacheFresh: false }],
    ['no generation row yet', { inventory: undefined }],
    ['no meta row yet', { cache: undefined }],
  ])('does not stand when %s', (_, change) => {
    expect(stillWarm(record, { ...view, ...change })).toBe(false);
  });

  it('does not stand once a backoff it waited on ends', () => {
    expect(stillWarm({ ...record, validUntil: 2_000 }, { ...view, now: 1_999 })).toBe(true);
    expect(stillWarm({ ...record, validUntil: 2_000 }, { ...view, now: 2_000 })).toBe(false);
  });

  it('never stands without a record or without a known ETag', () => {
    expect(stillWarm(undefined, view)).toBe(false);
    expect(stillWarm({ ...record, etag: undefined }, { ...view, etag: undefined })).toBe(false);
  });

  it('is read from the generation row, and a garbled one is no record', () => {
    const row = (warm: string | undefined) => ({ partitionKey: 'p', rowKey: '~generation', etag: 'x', props: { generation: 7, warm } });
    expect(warmRecordOf(row(JSON.stringify(record)))).toEqual(record);
    expect(warmRecordOf(row('{'))).toBeUndefined();
    expect(warmRecordOf(row(undefined))).toBeUndefined();
  });
});

describe('a plan that changes nothing', () => {
  const quiet = noActions() as PoolPlan;

  it('is one with no action at all', () => {
    expect(changesNothing(quiet)).toBe(true);
  });

  it.each<[string, Partial<PoolPlan>]>([
    ['a switch record', { safety: { kind: 'set', state: { providerOnly: ['a'], inventoryOnly: [], since: 1 } } }],
    ['a cleared switch', { safety: { kind: 'clear' } }],
    ['a retirement', { retire: [{ id: 'a', etag: 'e', why: 'gone' }] }],
    ['an adoption', { adopt: [{ id: 'a', name: 'a', status: 'Running' }] }],
    ['a raise', { raise: { from: 1, to: 2, etag: 'e' } }],
    ['a delete', { delete: [{ id: 'a', name: 'a', row: undefined, errorInfo: null }] }],
    ['a backoff', { backoff: { failures: 1, lastFailureAt: 1, until: 2 } }],
    ['a status update', { statusUpdates: [{ row: { partitionKey: 'p', rowKey: 'a', etag: 'e', props: { createdAt: 1, updatedAt: 1 } }, status: 'Running' }] }],
  ])('is not one with %s', (_, change) => {
    expect(changesNothing({ ...quiet, ...change })).toBe(false);
  });
});
