import { describe, expect, it } from 'vitest';
import { LOST_AFTER_MS, mergeRequest, onDelivery, postpone, putBack, type Pending } from '../../src/queue/pending-plan.js';

const NOW = 1_000_000;
let tokens = 0;
const token = (at: number) => at + ++tokens;
const marker = (over: Partial<Pending> = {}): Pending => ({ dueAt: NOW, reason: 'r', held: false, sentAt: NOW, sentFor: 7, ...over });

describe('the pending marker', () => {
  it('merges requests: the earliest due time, the latest value; a message only when none comes in time', () => {
    const first = mergeRequest(undefined, { at: NOW + 60_000, reason: 'window', load: 1 }, NOW, token);
    expect(first.send).toBe(NOW + 60_000);
    const later = mergeRequest(first.next, { at: NOW + 90_000, reason: 'later', load: 2 }, NOW, token);
    expect(later.send).toBeUndefined();
    expect(later.next).toMatchObject({ dueAt: NOW + 60_000, reason: 'window', load: 2 });
    const sooner = mergeRequest(later.next, { at: NOW, reason: 'push' }, NOW, token);
    expect(sooner.send).toBe(NOW);
    expect(sooner.next).toMatchObject({ dueAt: NOW, reason: 'push', load: 2 });
  });

  it('keeps a held marker at its retry time: a push meanwhile sends nothing but its value is kept', () => {
    const held = marker({ dueAt: NOW + 5_000, held: true, sentAt: NOW + 5_000 });
    expect(mergeRequest(held, { at: NOW, reason: 'push', load: 9 }, NOW, token)).toEqual({ next: { ...held, load: 9 } });
  });

  it('sends again for a marker whose message is overdue by more than a minute', () => {
    const lost = marker({ sentAt: NOW - LOST_AFTER_MS - 1 });
    expect(mergeRequest(lost, { at: NOW, reason: 'again' }, NOW, token).send).toBe(NOW);
  });

  it('postpones on a held lease, with a new message only when the one delivered was the marker\'s', () => {
    const own = postpone(marker(), { reason: 'busy' }, NOW + 5_000, 7, NOW, token);
    expect(own).toMatchObject({ send: NOW + 5_000, next: { held: true, dueAt: NOW + 5_000, reason: 'r' } });
    const other = postpone(marker({ sentAt: NOW + 4_500 }), { reason: 'busy' }, NOW + 5_000, 99, NOW, token);
    expect(other.send).toBeUndefined();
  });

  it('puts back what an unfinished reconcile took, named to its returning message, merged with what came since', () => {
    const taken = marker({ dueAt: NOW - 2_000, load: 4, sentFor: 7 });
    expect(putBack(undefined, taken, 7, NOW).next).toEqual({ dueAt: NOW - 2_000, reason: 'r', load: 4, held: false, sentAt: NOW, sentFor: 7 });
    // A poll asked for while it ran has its own message: the earliest due time, the newest value.
    const since = marker({ dueAt: NOW + 2_000, reason: 'poll', load: 9, sentAt: NOW + 2_000, sentFor: 11 });
    expect(putBack(since, taken, 7, NOW).next).toEqual({ ...since, dueAt: NOW - 2_000 });
    // An outside message cannot be named: the marker waits for the next request's message.
    expect(putBack(undefined, taken, undefined, NOW).next?.sentFor).toBeUndefined();
  });

  it('serves the marker\'s own message with its latest value, drops one already served, folds an outside one while held', () => {
    expect(onDelivery({ reason: 'x', dueAt: 7 }, marker({ load: 4 }), NOW)).toEqual({ kind: 'serve', reason: 'r', load: 4 });
    expect(onDelivery({ reason: 'x', dueAt: 7 }, undefined, NOW)).toMatchObject({ kind: 'drop' });
    expect(onDelivery({ reason: 'x', dueAt: 7, load: 3 }, undefined, NOW)).toEqual({ kind: 'serve', reason: 'x', load: 3 });
    expect(onDelivery({ reason: 'x', dueAt: 5 }, marker({ dueAt: NOW + 30_000 }), NOW)).toMatchObject({ kind: 'drop' });
    expect(onDelivery({ reason: 'raw', load: 8 }, marker({ held: true, dueAt: NOW + 3_000 }), NOW)).toEqual({ kind: 'fold' });
    expect(onDelivery({ reason: 'raw', load: 8 }, marker(), NOW)).toEqual({ kind: 'serve', reason: 'raw', load: 8 });
  });
});
