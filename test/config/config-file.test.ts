import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadConfig, parseConfigText } from '../../src/config/load.js';
import { writeConfig } from '../support/config.js';
import { azure, cli, k8s, pool, target } from './fixtures.js';

const badFiles: { name: string; doc: unknown; path: string; message: RegExp }[] = [
  { name: 'a negative maxCount', doc: { azure, pools: [pool(), pool({ name: 'b', maxCount: -1 })] }, path: 'pools[1].maxCount', message: /expected a number ≥ 0/ },
  { name: 'a rate without a burst', doc: { azure, pools: [pool({ reconcileRate: '1m' })] }, path: 'pools[0].reconcileRate', message: /invalid syntax/ },
  { name: 'a rate with a space', doc: { azure, pools: [pool({ creationRate: '1m, 1' })] }, path: 'pools[0].creationRate', message: /invalid refill rate/ },
  { name: 'a rate with a bad duration', doc: { azure, pools: [pool({ creationRate: 'x,1' })] }, path: 'pools[0].creationRate', message: /invalid duration/ },
  { name: 'a rate with three parts', doc: { azure, pools: [pool({ creationRate: '1m,1,2' })] }, path: 'pools[0].creationRate', message: /invalid syntax/ },
  { name: 'a rate with a negative burst', doc: { azure, pools: [pool({ reconcileRate: '1m,-1' })] }, path: 'pools[0].reconcileRate', message: /invalid refill rate/ },
  { name: 'a duration without a unit', doc: { azure, pools: [pool({ instanceCache: { ttl: '5' } })] }, path: 'pools[0].instanceCache.ttl', message: /missing unit/ },
  { name: 'a chunk size of 0', doc: { azure, pools: [pool({ chunkSize: 0 })] }, path: 'pools[0].chunkSize', message: /≥ 1/ },
  { name: 'an unknown top-level field', doc: { azure, pool: [] }, path: '', message: /unknown field "pool"/ },
  { name: 'an unknown pool field', doc: { azure, pools: [pool({ maxcount: 3 })] }, path: 'pools[0]', message: /unknown field "maxcount"/ },
  { name: 'an unsupported target kind', doc: { kubernetes: k8s, targets: [target({ scaleTargetRef: { kind: 'Job', name: 'x' } })] }, path: 'targets[0].scaleTargetRef.kind', message: /Deployment/ },
  { name: 'scale to zero without an activator', doc: { kubernetes: k8s, targets: [target({ activator: undefined })] }, path: 'targets[0].activator', message: /only scales to zero behind an activator/ },
  { name: 'a prefix that cannot name a table', doc: { storage: { connection: 'x', prefix: 'Drover!' } }, path: 'storage.prefix', message: /lowercase/ },
  { name: 'a subscription id that is not a GUID', doc: { azure: { ...azure, subscriptionId: 'abc' } }, path: 'azure.subscriptionId', message: /GUID/ },
  { name: 'an unknown credential mode', doc: { azure: { ...azure, credential: 'password' } }, path: 'azure.credential', message: /"default", "managed-identity", "dev"/ },
  { name: 'duplicate pool names', doc: { azure, pools: [pool(), pool()] }, path: 'pools[1].name', message: /duplicate pool name "workers"/ },
  { name: 'an unknown load source', doc: { kubernetes: k8s, targets: [target({ load: { source: 'kafka', targetPerReplica: 1 } })] }, path: 'targets[0].load.source', message: /http|queue|push|prometheus/ },
  { name: 'a fractional minScale', doc: { kubernetes: k8s, targets: [target({ minScale: 1.5 })] }, path: 'targets[0].minScale', message: /whole number/ },
  { name: 'both connection and accountName', doc: { storage: { connection: 'x', accountName: 'acct' } }, path: 'storage', message: /either connection or accountName/ },
  { name: 'pools without the azure section', doc: { pools: [pool()] }, path: 'azure', message: /required when pools are configured/ },
  { name: 'a probe URL that is not a URL', doc: { kubernetes: k8s, targets: [target({ activator: { probeUrl: 'web/healthz' } })] }, path: 'targets[0].activator.probeUrl', message: /URL/ },
  { name: 'a negative stable window', doc: { kubernetes: k8s, targets: [target({ scaleToZero: { stableWindow: '-5s' } })] }, path: 'targets[0].scaleToZero.stableWindow', message: /≥ 0/ },
  { name: 'pools given as a map', doc: { azure, pools: { workers: pool() } }, path: 'pools', message: /list of pools/ },
  { name: 'a Kubernetes target without the kubernetes section', doc: { targets: [target()] }, path: 'targets[0].scaleTargetRef', message: /kubernetes section/ },
  { name: 'invalid YAML', doc: 'pools:\n  - name: a\n   bad: [', path: '', message: /line \d+/ },
];

describe('configuration errors', () => {
  it.each(badFiles)('rejects $name at "$path" with exit code 2', async ({ doc, path, message }) => {
    const file = writeConfig(doc);
    const { code, stderr } = await cli(['--config', file, 'status']);
    expect(code).toBe(2);
    const line = stderr.split('\n').find((l) => l.trimStart().startsWith(`${path || '(file)'}:`));
    expect(line, stderr).toBeDefined();
    expect(line).toMatch(message);
  });

  it('lists every problem of a file, not just the first', async () => {
    const file = writeConfig({ azure: { ...azure, subscriptionId: 'x' }, pools: [pool({ maxCount: -1, chunkSize: 0, reconcileRate: '1m' })] });
    const { code, stderr } = await cli(['--config', file, 'reconcile']);
    expect(code).toBe(2);
    for (const p of ['azure.subscriptionId', 'pools[0].maxCount', 'pools[0].chunkSize', 'pools[0].reconcileRate']) {
      expect(stderr).toContain(`${p}:`);
    }
  });

  it('names a missing file', async () => {
    const { code, stderr } = await cli(['--config', '/nonexistent/drover.yaml', 'status']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/cannot read the file/);
  });

  it('fills in the defaults of DESIGN.md and parses durations and rates once', () => {
    const cfg = parseConfigText(JSON.stringify({ azure, pools: [pool()], kubernetes: k8s, targets: [target()] }));
    expect(cfg.pools[0]).toMatchObject({
      maxCount: 50,
      chunkSize: 20,
      reconcileRate: { intervalMs: 60_000, burst: 1 },
      creationRate: { intervalMs: 5_000, burst: 1 },
      // The jitter defaults to a tenth of the ttl.
      instanceCache: { ttl: 300_000, jitter: 30_000 },
      enableVmssFlexNodes: false,
    });
    expect(cfg.targets[0]).toMatchObject({
      minScale: 0,
      maxScale: 0,
      scaleToZero: { enabled: true, stableWindow: 60_000, gracePeriod: 30_000 },
      activationTimeout: 610_000,
      activator: { probePeriod: 1_000, probeTimeout: 45_000 },
    });
    expect(cfg.azure?.resourceManagerEndpoint).toBe('https://127.0.0.1:1');
    expect(Object.isFrozen(cfg.pools[0])).toBe(true);
  });

  it('reads the files it names relative to the config file, not the working directory', async () => {
    const file = writeConfig({ azure: { ...azure, caFile: 'certs/ca.pem' }, kubernetes: { kubeconfig: './aks.kubeconfig' } });
    const cfg = await loadConfig(file);
    expect(cfg.azure?.caFile).toBe(path.join(path.dirname(file), 'certs/ca.pem'));
    expect(cfg.kubernetes?.kubeconfig).toBe(path.join(path.dirname(file), 'aks.kubeconfig'));
    const absolute = await loadConfig(writeConfig({ kubernetes: { kubeconfig: '~/.kube/config' } }));
    expect(absolute.kubernetes?.kubeconfig).toBe('~/.kube/config');
  });
});
