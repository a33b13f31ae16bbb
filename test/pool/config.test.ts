/**
 * The seed's config `check()` branches, now held by the schema, and one owner per scale set or
 * workload: overlapping entries stop the process with exit code 2, naming both.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { isConfigError, parseConfig } from '../../src/config/load.js';
import { SUBSCRIPTION, writeConfig } from '../support/config.js';

const azure = { subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: 'https://127.0.0.1:1' };
const pool = (extra: object = {}) => ({ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss' }, ...extra });
const problems = (doc: unknown) => {
  try {
    parseConfig(doc);
  } catch (err) {
    if (isConfigError(err)) return err.problems;
    throw err;
  }
  return [];
};

describe("the seed's config check, through the schema", () => {
  it.each([
    { name: 'a zero chunk size is refused (ChunkSize must be set)', change: { chunkSize: 0 }, path: 'pools[0].chunkSize' },
    { name: 'a negative chunk size is refused', change: { chunkSize: -1 }, path: 'pools[0].chunkSize' },
    { name: 'a fractional chunk size is refused', change: { chunkSize: 1.5 }, path: 'pools[0].chunkSize' },
    { name: 'a negative max count is refused', change: { maxCount: -1 }, path: 'pools[0].maxCount' },
    { name: 'a reconcile limiter that is not a rate is refused', change: { reconcileRate: null }, path: 'pools[0].reconcileRate' },
    { name: 'a creation limiter that is not a rate is refused', change: { creationRate: 'never' }, path: 'pools[0].creationRate' },
  ])('$name', ({ change, path }) => {
    expect(problems({ azure, pools: [pool(change)] }).map((p) => p.path)).toEqual([path]);
  });

  it.each([
    { name: 'a zero max count means no limit and is valid', change: { maxCount: 0 } },
    { name: 'a chunk of one is valid', change: { chunkSize: 1 } },
  ])('$name', ({ change }) => {
    expect(problems({ azure, pools: [pool(change)] })).toEqual([]);
  });

  it('both limiters are always set: missing rates get the defaults', () => {
    const cfg = parseConfig({ azure, pools: [pool()] });
    expect(cfg.pools[0]).toMatchObject({ reconcileRate: { intervalMs: 60_000, burst: 1 }, creationRate: { intervalMs: 5_000, burst: 1 } });
  });
});

async function cli(args: string[]) {
  let stderr = '';
  const code = await runCli(args, { stdout: () => undefined, stderr: (s) => (stderr += s), env: {} });
  return { code, stderr };
}

const deployment = (name: string, workload: string) => ({
  name,
  scaleTargetRef: { kind: 'Deployment', namespace: 'default', name: workload },
  scaleToZero: { enabled: false },
});

describe('one scale set, one owner', () => {
  it.each([
    { name: 'two pools on one scale set, the resource group in another case', doc: { azure, pools: [pool(), pool({ name: 'other', scaleSet: { resourceGroup: 'RG', name: 'VMSS' } })] }, path: 'pools[1].scaleSet', both: ['pools[1] ("other")', 'pools[0] ("workers")'] },
    { name: 'two targets on one workload', doc: { kubernetes: { kubeconfig: '/dev/null' }, targets: [deployment('a', 'web'), deployment('b', 'web')] }, path: 'targets[1].scaleTargetRef', both: ['targets[1] ("b")', 'targets[0] ("a")'] },
    {
      name: 'two targets on one Deployment, one naming it by kind and one by group/version/plural',
      doc: { kubernetes: { kubeconfig: '/dev/null' }, targets: [deployment('a', 'web'), { ...deployment('b', 'web'), scaleTargetRef: { group: 'apps', version: 'v1', plural: 'deployments', name: 'web' } }] },
      path: 'targets[1].scaleTargetRef',
      both: ['targets[1] ("b")', 'targets[0] ("a")'],
    },
  ])('refuses $name with exit code 2, naming both entries', async ({ doc, path, both }) => {
    const { code, stderr } = await cli(['--config', writeConfig(doc), 'status']);
    expect(code).toBe(2);
    const line = stderr.split('\n').find((l) => l.trimStart().startsWith(`${path}:`));
    expect(line, stderr).toBeDefined();
    for (const entry of both) expect(line).toContain(entry);
  });

  it('accepts two pools on scale sets of the same name in different resource groups', () => {
    expect(problems({ azure, pools: [pool(), pool({ name: 'other', scaleSet: { resourceGroup: 'rg2', name: 'vmss' } })] })).toEqual([]);
  });
});

describe('targets that size a pool', () => {
  const poolTarget = (name: string, poolName: string) => ({ name, scaleTargetRef: { kind: 'Pool', name: poolName }, minScale: 1, load: { source: 'push', targetPerReplica: 1 } });

  it('loads a Pool target with the new pool keys at their defaults', () => {
    const cfg = parseConfig({ azure, pools: [pool()], targets: [poolTarget('jobs', 'workers')] });
    expect(cfg.targets[0]!.scaleTargetRef).toEqual({ kind: 'Pool', name: 'workers' });
    expect(cfg.pools[0]).toMatchObject({ deletionRate: { intervalMs: 5_000, burst: 10 }, scaleIn: { policy: 'newest', minAge: 0 } });
  });

  it.each([
    { name: 'two targets on one pool', doc: { azure, pools: [pool()], targets: [poolTarget('a', 'workers'), poolTarget('b', 'workers')] }, path: 'targets[1].scaleTargetRef', fix: /pool "workers" is also managed by targets\[0\] \("a"\).*give it one owner/ },
    { name: 'a Pool target naming no pool', doc: { azure, pools: [pool()], targets: [poolTarget('a', 'nowhere')] }, path: 'targets[0].scaleTargetRef.name', fix: /names no pool: add a pool named "nowhere", or name one of "workers"/ },
    {
      name: 'a target of the retired VirtualMachineScaleSet kind',
      doc: { azure, targets: [{ name: 'batch', minScale: 1, scaleTargetRef: { kind: 'VirtualMachineScaleSet', resourceGroup: 'rg-batch', name: 'vmss-batch' } }] },
      path: 'targets[0].scaleTargetRef',
      fix: /the VirtualMachineScaleSet kind is retired: size a scale set through a pool — pools: \[\{ name: workers, scaleSet: \{ resourceGroup: rg-batch, name: vmss-batch \} \}\] and scaleTargetRef: \{ kind: Pool, name: workers \}/,
    },
    { name: 'a scale-in policy that is not one', doc: { azure, pools: [pool({ scaleIn: { policy: 'random' } })] }, path: 'pools[0].scaleIn.policy', fix: /expected "newest" or "oldest"/ },
    { name: 'a scale-in minAge that is not a duration', doc: { azure, pools: [pool({ scaleIn: { minAge: 'ten minutes' } })] }, path: 'pools[0].scaleIn.minAge', fix: /expected a duration such as "90s"/ },
  ])('refuses $name with exit code 2, naming the fix', async ({ doc, path, fix }) => {
    const { code, stderr } = await cli(['--config', writeConfig(doc), 'status']);
    expect(code).toBe(2);
    const line = stderr.split('\n').find((l) => l.trimStart().startsWith(`${path}:`));
    expect(line, stderr).toMatch(fix);
  });
});
