// Which configuration wins an object (src/config/sequence.ts, src/job/config-stamp.ts): a
// higher sequence, or the same sequence and a higher hash of the validated configuration in
// canonical JSON, so two files that say the same thing in other words never count as two.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { canonicalJson, configHash, outranks } from '../../src/config/sequence.js';
import { leftAlone, leftToNewer, leftToNewerText, stampOf } from '../../src/job/config-stamp.js';

const storage = { connection: 'UseDevelopmentStorage=true' };
const kubernetes = { kubeconfig: '/k/config' };
const web = (maxScale: number) => ({ name: 'web', maxScale, scaleTargetRef: { kind: 'Deployment', name: 'web' }, load: { source: 'push', targetPerReplica: 10 } });

describe('a configuration hash', () => {
  it('is equal for one configuration written with its keys in another order and its defaults spelled out', () => {
    const terse = parseConfig({ storage, kubernetes, targets: [web(10)] });
    const spelled = parseConfig({ targets: [{ load: { targetPerReplica: 10, source: 'push' }, scaleTargetRef: { name: 'web', kind: 'Deployment' }, maxScale: 10, name: 'web', initialScale: 1 }], kubernetes, storage });
    expect(configHash(spelled)).toBe(configHash(terse));
    expect(configHash(terse)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when the configuration says something else', () => {
    expect(configHash(parseConfig({ storage, kubernetes, targets: [web(3)] }))).not.toBe(configHash(parseConfig({ storage, kubernetes, targets: [web(10)] })));
  });

  it('is taken over keys sorted at every depth, arrays kept in order', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});

describe('which configuration outranks which', () => {
  it.each([
    { name: 'a higher sequence wins whatever the hashes', a: { seq: 2, hash: '00' }, b: { seq: 1, hash: 'ff' }, wins: true },
    { name: 'a lower sequence loses whatever the hashes', a: { seq: 1, hash: 'ff' }, b: { seq: 2, hash: '00' }, wins: false },
    { name: 'the same sequence: the higher hash wins', a: { seq: 5, hash: 'b0' }, b: { seq: 5, hash: 'a0' }, wins: true },
    { name: 'the same sequence: the lower hash loses', a: { seq: 5, hash: 'a0' }, b: { seq: 5, hash: 'b0' }, wins: false },
    { name: 'the same configuration does not outrank itself', a: { seq: 5, hash: 'a0' }, b: { seq: 5, hash: 'a0' }, wins: false },
    { name: 'a stamp from before hashes loses to any hash of its sequence', a: { seq: 5, hash: '' }, b: { seq: 5, hash: '00' }, wins: false },
  ])('$name', ({ a, b, wins }) => {
    expect(outranks(a, b)).toBe(wins);
  });
});

describe('an object stamped by another configuration', () => {
  const mine = { seq: 7, hash: 'a'.repeat(64) };
  const higher = { seq: 7, hash: 'b'.repeat(64) };
  const live = () => Promise.resolve(higher);
  const none = () => Promise.resolve(undefined);

  it('is left to the higher hash of the same sequence while it runs, and says so', async () => {
    expect(await leftToNewer(stampOf({ configSeq: 7, configHash: higher.hash }), mine, live)).toEqual(higher);
    expect(leftToNewerText(higher, mine)).toBe('left to configuration bbbbbbbb (same sequence 7)');
    expect(leftAlone(higher, mine)).toMatchObject({ decision: 'left to another configuration' });
  });

  it('is not left alone when its stamp is this configuration, a lower hash, a stamp from before hashes, or nobody runs the winner', async () => {
    expect(await leftToNewer(stampOf({ configSeq: 7, configHash: mine.hash }), mine, live)).toBeUndefined();
    expect(await leftToNewer(stampOf({ configSeq: 7, configHash: '0'.repeat(64) }), mine, live)).toBeUndefined();
    expect(await leftToNewer(stampOf({ configSeq: 7 }), mine, live)).toBeUndefined();
    expect(await leftToNewer(stampOf({ configSeq: 7, configHash: higher.hash }), mine, none)).toBeUndefined();
  });

  it('of a newer sequence keeps the words a rolling deploy has always used', () => {
    expect(leftToNewerText({ seq: 8, hash: '' }, mine)).toBe('left to a newer configuration (seq 8)');
  });
});
