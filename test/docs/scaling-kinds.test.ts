// docs/scaling.md's examples of the serviceBus, azureMonitor and resource sources load as written.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { fencedBlocks, section } from '../support/readme.js';

const text = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
const examples = fencedBlocks(section('Service Bus, Azure Monitor metrics, CPU and memory', text), 'yaml');

describe('docs/scaling.md source examples', () => {
  it('has one example per kind', () => {
    expect(examples.map((yaml) => /source: (\w+)/.exec(yaml)?.[1])).toEqual(['serviceBus', 'azureMonitor', 'resource']);
  });

  it.each(examples.map((yaml) => [/source: (\w+)/.exec(yaml)![1]!, yaml]))('the %s example loads with its defaults', (kind, yaml) => {
    const source = parseConfigText(yaml).targets[0]!.load!.sources[0]!;
    expect(source.source).toBe(kind);
    if (kind === 'azureMonitor') expect(source).toMatchObject({ aggregation: 'Average', window: 300_000, delay: 180_000, metricType: 'perReplica' });
    if (kind === 'serviceBus') expect(source).toMatchObject({ namespace: 'orders', queueName: 'jobs', metricType: 'total' });
    if (kind === 'resource') expect(source).toMatchObject({ resource: 'cpu', targetPerReplica: 60, metricType: 'total' });
  });
});
