// Issue 13: absurd values are refused by path (exit 2) instead of misbehaving at run time.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { tempDir, writeConfig } from '../support/config.js';
import { azure, cli, k8s, pool, target } from './fixtures.js';

const httpLoad = (extra: object) => ({ source: 'http', url: 'http://127.0.0.1:1/load', targetPerReplica: 1, ...extra });

async function refusedAt(file: string, where: string, message: RegExp) {
  const { code, stderr } = await cli(['--config', file, 'status']);
  expect(code, stderr).toBe(2);
  const line = stderr.split('\n').find((l) => l.trimStart().startsWith(`${where || '(file)'}:`));
  expect(line, stderr).toBeDefined();
  expect(line).toMatch(message);
}

const outOfBounds: { name: string; doc: unknown; path: string; message: RegExp }[] = [
  { name: 'a load timeout of 600h', doc: { kubernetes: k8s, targets: [target({ load: httpLoad({ timeout: '600h' }) })] }, path: 'targets[0].load.timeout', message: /at most 24h/ },
  { name: 'a load timeout of 0', doc: { kubernetes: k8s, targets: [target({ load: httpLoad({ timeout: '0s' }) })] }, path: 'targets[0].load.timeout', message: /> 0/ },
  { name: 'a load pollInterval of 1s', doc: { kubernetes: k8s, targets: [target({ load: httpLoad({ pollInterval: '1s' }) })] }, path: 'targets[0].load.pollInterval', message: /at least 2s/ },
  { name: 'a TTL of 100,000,000h', doc: { azure, pools: [pool({ instanceCache: { ttl: '100000000h' } })] }, path: 'pools[0].instanceCache.ttl', message: /at most 24h/ },
  { name: 'a jitter longer than the TTL', doc: { azure, pools: [pool({ instanceCache: { ttl: '1m', jitter: '2m' } })] }, path: 'pools[0].instanceCache.jitter', message: /no longer than instanceCache\.ttl/ },
  { name: 'a stable window of 25h', doc: { kubernetes: k8s, targets: [target({ scaleToZero: { stableWindow: '25h' } })] }, path: 'targets[0].scaleToZero.stableWindow', message: /at most 24h/ },
  { name: 'a rate interval of 48h', doc: { azure, pools: [pool({ reconcileRate: '48h,1' })] }, path: 'pools[0].reconcileRate', message: /at most 24h/ },
  { name: 'maxScaleUpRate 1e308', doc: { kubernetes: k8s, targets: [target({ maxScaleUpRate: 1e308 })] }, path: 'targets[0].maxScaleUpRate', message: /≤ 1000/ },
  { name: 'maxScale 10,001', doc: { kubernetes: k8s, targets: [target({ maxScale: 10_001 })] }, path: 'targets[0].maxScale', message: /≤ 10000/ },
  { name: 'minScale 1e9', doc: { kubernetes: k8s, targets: [target({ minScale: 1e9 })] }, path: 'targets[0].minScale', message: /≤ 10000/ },
  { name: 'a pool maxCount of 1e6', doc: { azure, pools: [pool({ maxCount: 1e6 })] }, path: 'pools[0].maxCount', message: /≤ 10000/ },
  { name: 'an ARM request timeout of 2 days', doc: { azure: { ...azure, requestTimeout: '48h' } }, path: 'azure.requestTimeout', message: /at most 24h/ },
  { name: 'a Kubernetes request timeout of 0', doc: { kubernetes: { ...k8s, requestTimeout: '0s' } }, path: 'kubernetes.requestTimeout', message: /> 0/ },
  { name: 'a policy that is neither adaptive nor knative', doc: { kubernetes: k8s, targets: [target({ policy: 'kpa' })] }, path: 'targets[0].policy', message: /expected adaptive or knative/ },
  { name: 'a headroom budget of 0 %', doc: { kubernetes: k8s, targets: [target({ headroom: { underProvisioning: 0 } })] }, path: 'targets[0].headroom.underProvisioning', message: /> 0/ },
  { name: 'a headroom budget of 80 %', doc: { kubernetes: k8s, targets: [target({ headroom: { underProvisioning: 80 } })] }, path: 'targets[0].headroom.underProvisioning', message: /≤ 50/ },
  { name: 'a forecast mode that is none of off, observe and floor', doc: { kubernetes: k8s, targets: [target({ forecast: { mode: 'on' } })] }, path: 'targets[0].forecast.mode', message: /expected off, observe or floor/ },
  { name: 'a forecast key it does not know', doc: { kubernetes: k8s, targets: [target({ forecast: { mode: 'floor', days: 7 } })] }, path: 'targets[0].forecast', message: /unknown field "days"/ },
  { name: 'a forecast with policy: knative', doc: { kubernetes: k8s, targets: [target({ policy: 'knative', forecast: { mode: 'observe' } })] }, path: 'targets[0].forecast.mode', message: /expected off with policy: knative/ },
  { name: 'a duplicate key', doc: 'azure:\n  subscriptionId: x\n  subscriptionId: y\n', path: 'azure', message: /duplicate key "subscriptionId"/ },
];

describe('configuration bounds', () => {
  it.each(outOfBounds)('refuses $name at "$path" with exit code 2', async ({ doc, path: where, message }) => {
    await refusedAt(writeConfig(doc), where, message);
  });

  it('refuses a file over 256 KiB before parsing it', async () => {
    const file = path.join(tempDir(), 'drover.config.yaml');
    writeFileSync(file, `# ${'x'.repeat(300 * 1024)}\npools: []\n`);
    const started = Date.now();
    await refusedAt(file, '', /more than the 262144 \(256 KiB\) allowed/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('checks for duplicate keys in time linear in the file', () => {
    // ~250 KiB of distinct keys in one mapping, one repeated at the end: quadratic took seconds.
    const keys = Array.from({ length: 20_000 }, (_, i) => `  k${i}: 1`).join('\n');
    const text = `kubernetes:\n${keys}\n  k7: 2\n`;
    const started = Date.now();
    expect(() => parseConfigText(text)).toThrow(/kubernetes: duplicate key "k7"/);
    // Quadratic took about 5 s for a file this size; parsing itself takes a few hundred ms.
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('gives a target forecast mode off by default; off with policy: knative is accepted', () => {
    const cfg = parseConfigText(JSON.stringify({ kubernetes: k8s, targets: [target(), target({ name: 'api', scaleTargetRef: { kind: 'Deployment', name: 'api' }, policy: 'knative', forecast: { mode: 'off' } })] }));
    expect(cfg.targets.map((t) => t.forecast)).toEqual([{ mode: 'off' }, { mode: 'off' }]);
  });

  it('gives the request timeouts their defaults', () => {
    const cfg = parseConfigText(JSON.stringify({ azure, kubernetes: k8s }));
    expect(cfg.azure?.requestTimeout).toBe(30_000);
    expect(cfg.kubernetes?.requestTimeout).toBe(10_000);
  });
});
