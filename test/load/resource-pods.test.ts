// The resource source's reading of pods and metrics.k8s.io, and its grants (pure).
import { describe, expect, it } from 'vitest';
import { parseQuantity, podFactsOf, resourceKind, usageOf } from '../../src/load/resource-source.js';

const pod = (over: { containers?: object[]; initContainers?: object[]; status?: object; deletionTimestamp?: string } = {}) => ({
  metadata: { name: 'web-1', ...(over.deletionTimestamp ? { deletionTimestamp: over.deletionTimestamp } : {}) },
  spec: { containers: over.containers ?? [{ name: 'app', resources: { requests: { cpu: '500m', memory: '256Mi' } } }], initContainers: over.initContainers ?? [] },
  status: over.status ?? { phase: 'Running', startTime: '2026-12-07T12:00:00Z', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-07T12:00:20Z' }] },
});

describe('podFactsOf', () => {
  it('reads phase, start, the Ready condition and each container request in millicores', () => {
    expect(podFactsOf(pod(), 'cpu')).toEqual({
      name: 'web-1',
      phase: 'Running',
      deleting: false,
      startedAt: Date.parse('2026-12-07T12:00:00Z'),
      ready: { status: true, since: Date.parse('2026-12-07T12:00:20Z') },
      containers: [{ name: 'app', request: 500 }],
    });
  });

  it('counts restartable init (sidecar) containers towards the request, not the other init containers', () => {
    const facts = podFactsOf(pod({ initContainers: [{ name: 'proxy', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } }, { name: 'migrate', resources: {} }] }), 'cpu');
    expect(facts.containers).toEqual([{ name: 'app', request: 500 }, { name: 'proxy', request: 100 }]);
  });

  it('keeps a container without a request as one without, for the calculator to name', () => {
    expect(podFactsOf(pod({ containers: [{ name: 'app', resources: {} }] }), 'memory').containers).toEqual([{ name: 'app', request: undefined }]);
  });

  it('reads a deleting pod as deleting and one without a Ready condition as not known ready', () => {
    const facts = podFactsOf(pod({ deletionTimestamp: '2026-12-07T12:01:00Z', status: { phase: 'Pending' } }), 'cpu');
    expect([facts.deleting, facts.phase, facts.ready, facts.startedAt]).toEqual([true, 'Pending', undefined, undefined]);
  });
});

describe('usageOf (metrics.k8s.io PodMetrics)', () => {
  it('sums a pod\'s containers, with its timestamp and window', () => {
    const items = [{ metadata: { name: 'web-1' }, timestamp: '2026-12-07T12:05:00Z', window: '15.5s', containers: [{ name: 'app', usage: { cpu: '450m', memory: '200Mi' } }, { name: 'proxy', usage: { cpu: '12345678n', memory: '10Mi' } }] }];
    expect(usageOf(items, 'cpu').get('web-1')).toEqual({ value: 450 + 12.345678, at: Date.parse('2026-12-07T12:05:00Z'), windowMs: 15_500 });
    expect(usageOf(items, 'memory').get('web-1')!.value).toBe(210 * 2 ** 20);
  });

  it('leaves out a pod with a container it cannot read (missing metrics, as HPA)', () => {
    expect(usageOf([{ metadata: { name: 'a' }, timestamp: '2026-12-07T12:05:00Z', window: '30s', containers: [{ name: 'app', usage: {} }] }], 'cpu').size).toBe(0);
  });
});

describe('parseQuantity', () => {
  it.each<[string, 'cpu' | 'memory', number | undefined]>([
    ['1', 'cpu', 1000],
    ['250m', 'cpu', 250],
    ['1.5', 'cpu', 1500],
    ['500000u', 'cpu', 500],
    ['1Gi', 'memory', 2 ** 30],
    ['128M', 'memory', 128e6],
    ['1e3', 'memory', 1000],
    ['lots', 'cpu', undefined],
    ['-1', 'cpu', undefined],
  ])('%s of %s is %s', (text, resource, want) => {
    expect(parseQuantity(text, resource)).toBe(want);
  });
});

describe('resource grants', () => {
  it('get and list on pods and pods.metrics.k8s.io, get on the target\'s /scale, in its namespace only', () => {
    const grants = resourceKind.grants!({ resource: 'cpu' }, { kind: 'kubernetes', ref: { kind: 'Deployment', namespace: 'shop', name: 'web' } });
    expect(grants.map((g) => (g.kind === 'kubernetesRole' ? [g.apiGroup, g.resources, g.verbs, g.namespace] : g.kind))).toEqual([
      ['', ['pods'], ['get', 'list'], 'shop'],
      ['metrics.k8s.io', ['pods'], ['get', 'list'], 'shop'],
      ['apps', ['deployments/scale'], ['get'], 'shop'],
    ]);
  });
});
