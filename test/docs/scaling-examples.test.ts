/**
 * docs/scaling.md's load examples are configurations Drover loads: each `load:` block, put in a
 * target, parses, and the prometheus and metricType examples read as the text says.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { fencedBlocks } from '../support/readme.js';

const doc = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
const loads = fencedBlocks(doc, 'yaml').filter((block) => block.startsWith('load:'));

const targetWith = (block: string) =>
  parseConfig({ kubernetes: { kubeconfig: '/nonexistent' }, targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1, ...(parse(block) as object) }] }).targets[0]!;

describe('docs/scaling.md load examples', () => {
  it('has one for several sources, metricType and prometheus', () => {
    expect(loads.length).toBeGreaterThanOrEqual(3);
  });

  it.each(loads.map((block, i) => [i, block] as const))('example %i loads', (_i, block) => {
    expect(targetWith(block).load!.sources.length).toBeGreaterThan(0);
  });

  it('reads the metricType example as a perReplica latency beside a total queue', () => {
    const block = loads.find((b) => b.includes('metricType'))!;
    expect(targetWith(block).load!.sources.map((s) => [s.name, s.metricType])).toEqual([['latency', 'perReplica'], ['jobs', 'total']]);
  });

  it('reads the prometheus example with its defaults', () => {
    const block = loads.find((b) => b.includes('prometheus'))!;
    expect(targetWith(block).load!.sources[0]).toMatchObject({ name: 'load', source: 'prometheus', auth: 'azure', timeout: 2_000, ignoreNullValues: false, metricType: 'total' });
  });
});
