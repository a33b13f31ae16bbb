// HPA's replica calculator for the `resource` source, one row per rule (kubernetes
// pkg/controller/podautoscaler/replica_calculator.go and its test are the reference).
import { describe, expect, it } from 'vitest';
import { resourceReplicas, type PodFacts, type PodUsage, type ResourceName } from '../../src/load/replica-calculator.js';

const NOW = 10 * 3_600_000;
const MIN = 60_000;

/** A running pod, ready since long ago, requesting 1000m (or 1000 bytes) in one container. */
function pod(name: string, over: Partial<PodFacts> = {}): PodFacts {
  return { name, phase: 'Running', deleting: false, startedAt: NOW - 60 * MIN, ready: { status: true, since: NOW - 59 * MIN }, containers: [{ name: 'app', request: 1000 }], ...over };
}

/** Pods and their usage in percent of 1000, sampled just now over 30 s; `undefined` usage: no metrics. */
function fleet(rows: [PodFacts, number | undefined][]) {
  const usage = new Map<string, PodUsage>();
  for (const [p, pct] of rows) if (pct !== undefined) usage.set(p.name, { value: pct * 10, at: NOW - 10_000, windowMs: 30_000 });
  return { pods: rows.map(([p]) => p), usage };
}

type Row = { name: string; rows: [PodFacts, number | undefined][]; target?: number; current?: number; resource?: ResourceName; want: number | RegExp };

const starting = (name: string, over: Partial<PodFacts>) => pod(name, { startedAt: NOW - 2 * MIN, ...over });

describe('resourceReplicas (HPA replica calculator)', () => {
  it.each<Row>([
    { name: 'a Deployment of 4 pods at 90 % of requests with a target of 60 wants 6', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [pod('d'), 90]], want: 6 },
    { name: '4 pods at 30 % with 60 want 2', rows: [[pod('a'), 30], [pod('b'), 30], [pod('c'), 30], [pod('d'), 30]], want: 2 },
    { name: 'a ratio within the 0.1 tolerance keeps the current replicas', rows: [[pod('a'), 65], [pod('b'), 65], [pod('c'), 65]], current: 3, want: 3 },
    { name: 'a deleting pod is ignored', rows: [[pod('a'), 90], [pod('b'), 90], [pod('gone', { deleting: true }), 0]], current: 3, want: 3 },
    { name: 'a Failed pod is ignored', rows: [[pod('a'), 90], [pod('b'), 90], [pod('f', { phase: 'Failed' }), 0]], current: 3, want: 3 },
    { name: 'a Succeeded pod is ignored', rows: [[pod('a'), 90], [pod('b'), 90], [pod('s', { phase: 'Succeeded' }), 0]], current: 3, want: 3 },
    { name: 'a Pending pod is unready and counts 0 on a scale-up', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [pod('p', { phase: 'Pending' }), undefined]], want: 5 },
    { name: 'a CPU pod not ready within 5 minutes of its start is unready (0 on a scale-up)', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [starting('s', { ready: { status: false, since: NOW - MIN } }), 200]], want: 5 },
    { name: 'a CPU pod sampled before a whole window since it became ready is unready', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [starting('s', { ready: { status: true, since: NOW - 15_000 } }), 200]], want: 5 },
    { name: 'a CPU pod ready and sampled a window after becoming ready counts, even while starting', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [starting('s', { ready: { status: true, since: NOW - MIN } }), 200]], want: 8 },
    { name: 'past 5 minutes, a CPU pod that never became ready within 30 s of start is unready', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [pod('n', { startedAt: NOW - 10 * MIN, ready: { status: false, since: NOW - 10 * MIN + 5_000 } }), 200]], want: 5 },
    { name: 'past 5 minutes, a CPU pod that was ready and became unready later still counts', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [pod('n', { startedAt: NOW - 10 * MIN, ready: { status: false, since: NOW - 2 * MIN } }), 200]], want: 8 },
    { name: 'readiness does not matter for memory', resource: 'memory', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [starting('s', { ready: { status: false, since: NOW - MIN } }), 200]], want: 8 },
    { name: 'a pod without metrics counts at 100 % of its request on a scale-down', rows: [[pod('a'), 10], [pod('b'), 10], [pod('c'), 10], [pod('m'), undefined]], want: 3 },
    { name: 'a pod without metrics counts at the target when it is above 100 on a scale-down', target: 150, rows: [[pod('a'), 10], [pod('b'), 10], [pod('c'), 10], [pod('m'), undefined]], want: 2 },
    { name: 'a pod without metrics counts 0 on a scale-up', rows: [[pod('a'), 90], [pod('b'), 90], [pod('c'), 90], [pod('m'), undefined]], want: 5 },
    { name: 'no change when the unready pods flip the direction (up becomes down)', rows: [[pod('a'), 70], [pod('b'), 70], [pod('p', { phase: 'Pending' }), undefined], [pod('q', { phase: 'Pending' }), undefined]], want: 4 },
    { name: 'no change when the missing pods bring the ratio back into tolerance', rows: [[pod('a'), 72], [pod('b'), 72], [pod('c'), 72], [pod('m'), undefined]], want: 4 },
    { name: 'a container without a request fails naming it', rows: [[pod('a', { containers: [{ name: 'app', request: 500 }, { name: 'proxy', request: undefined }] }), 90]], want: /missing cpu request in container proxy of pod a/ },
    { name: 'no pod is a failure', rows: [], want: /no pods/ },
    { name: 'no metrics for any ready pod is a failure, never 0', rows: [[pod('a'), undefined], [pod('p', { phase: 'Pending' }), undefined]], want: /no cpu metrics for any ready pod/ },
  ])('$name', ({ rows, target = 60, current = 4, resource = 'cpu', want }) => {
    const answer = resourceReplicas({ resource, targetUtilization: target, currentReplicas: current, now: NOW, ...fleet(rows) });
    if (typeof want === 'number') expect(answer).toMatchObject({ ok: true, replicas: want });
    else expect(answer).toMatchObject({ ok: false, error: expect.stringMatching(want) });
  });
});
