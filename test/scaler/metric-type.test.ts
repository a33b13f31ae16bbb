/**
 * What a source's value means (metricType), through the production plan: `total` (the default,
 * KEDA AverageValue) asks for ⌈value ÷ targetPerReplica⌉; `perReplica` (KEDA Value: CPU %,
 * latency) for ⌈ready × value ÷ targetPerReplica⌉, and says nothing with no ready replica. It
 * applies where each source gives its own count (max, min, sum); a formula reads values as read.
 */
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { planDriver, settingsOf, T0 } from './plan-driver.js';

const http = (name: string, targetPerReplica: number, metricType?: string) => ({ name, source: 'http', url: `http://metrics.example/${name}`, targetPerReplica, ...(metricType ? { metricType } : {}) });

describe('metricType, through the plan', () => {
  const rows: { name: string; sources: Record<string, unknown>[]; combine?: unknown; ready: number; values: Record<string, number>; want: number | undefined }[] = [
    { name: 'total (the default): 45 at 10 per replica → 5, whatever is ready', sources: [http('web', 10)], ready: 2, values: { web: 45 }, want: 5 },
    { name: 'perReplica: 80 % average on 3 ready at 60 per replica → ⌈3 × 80 ÷ 60⌉ = 4', sources: [http('cpu', 60, 'perReplica')], ready: 3, values: { cpu: 80 }, want: 4 },
    { name: 'perReplica on 0 ready replicas is no reading: nothing is decided', sources: [http('cpu', 60, 'perReplica')], ready: 0, values: { cpu: 80 }, want: undefined },
    { name: 'max over a total and a perReplica source: jobs 20/5 = 4 against cpu 3 × 90/60 = 4.5 → 5', sources: [http('jobs', 5), http('cpu', 60, 'perReplica')], ready: 3, values: { jobs: 20, cpu: 90 }, want: 5 },
    { name: 'sum adds each source counted by its own type: ⌈20/5⌉ + ⌈3 × 90/60⌉ = 4 + 5 = 9', sources: [http('jobs', 5), http('cpu', 60, 'perReplica')], combine: 'sum', ready: 3, values: { jobs: 20, cpu: 90 }, want: 9 },
    { name: 'with 0 ready, max reads the total source alone: jobs 20/5 → 4', sources: [http('jobs', 5), http('cpu', 60, 'perReplica')], ready: 0, values: { jobs: 20, cpu: 90 }, want: 4 },
    { name: 'a formula reads the perReplica value as read: cpu 90 ÷ 30 → 3 on 5 ready', sources: [http('jobs', 5), http('cpu', 60, 'perReplica')], combine: { formula: 'cpu', targetPerReplica: 30 }, ready: 5, values: { jobs: 20, cpu: 90 }, want: 3 },
  ];
  it.each(rows)('$name', async ({ sources, combine, ready, values, want }) => {
    const settings = settingsOf({ load: { sources, ...(combine ? { combine } : {}) }, minScale: 0, maxScale: 50, maxScaleDownRate: 1000, activator: { probeUrl: 'http://web.example/healthz' } });
    const step = await planDriver(settings, { current: Math.max(ready, 1) }).step({ at: T0, load: undefined, ready, sources: values });
    expect(step.outcome.desired.kind === 'known' ? step.outcome.desired.desired : undefined).toBe(want);
  });

  it('a one-source load takes metricType too, and refuses another value naming the path', () => {
    const yaml = (metricType: string) => `kubernetes: {}\ntargets:\n  - name: web\n    scaleTargetRef: { kind: Deployment, name: web }\n    minScale: 1\n    load: { source: http, url: http://m.example/cpu, targetPerReplica: 60, metricType: ${metricType} }\n`;
    expect(parseConfigText(yaml('perReplica')).targets[0]!.load!.sources[0]!.metricType).toBe('perReplica');
    expect(() => parseConfigText(yaml('average'))).toThrow(/targets\[0\]\.load\.metricType: expected "total" or "perReplica"/);
  });
});
