// Building the KubeConfig: kubeconfig file, in-cluster, and Entra ID tokens for AKS, checked
// through the real client against the Kubernetes simulator where a request is involved.
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { KubernetesScaleTargets } from '../../src/kubernetes/client-node-scale-targets.js';
import { AKS_SCOPE } from '../../src/kubernetes/entra-id-auth.js';
import { expandHome, loadKubeConfig } from '../../src/kubernetes/kubeconfig.js';
import type { KubernetesScaleTargetRef } from '../../src/kubernetes/scale-target-ref.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';

const web: KubernetesScaleTargetRef = { kind: 'Deployment', namespace: 'default', name: 'web' };
const HOUR = 3_600_000;

let sim: KubernetesSim;
let home: string;
beforeAll(async () => {
  sim = await startKubernetesSim();
  sim.add(web, { replicas: 2 });
  home = await mkdtemp(path.join(tmpdir(), 'drover-kubeconfig-'));
  await mkdir(path.join(home, '.kube'));
  await writeFile(path.join(home, '.kube', 'config'), sim.kubeconfigYaml({ token: 'file-token' }));
});
afterAll(async () => {
  await sim.close();
  await rm(home, { recursive: true, force: true });
});
beforeEach(() => sim.resetCounters());

const authorizations = () => sim.requests.map((r) => r.authorization);

describe('expandHome', () => {
  it.each([
    { name: '~ alone is the home directory', file: '~', want: '/home/op' },
    { name: '~/ is under the home directory', file: '~/.kube/config', want: '/home/op/.kube/config' },
    { name: 'an absolute path is unchanged', file: '/etc/kube/config', want: '/etc/kube/config' },
    { name: '~user is not expanded', file: '~other/config', want: '~other/config' },
  ])('$name', ({ file, want }) => {
    expect(expandHome(file, '/home/op')).toBe(want);
  });
});

describe('loadKubeConfig from a kubeconfig file', () => {
  it('reads the file under ~ and talks to its cluster with its user', async () => {
    const kc = loadKubeConfig({ kubeconfig: '~/.kube/config' }, { homeDir: home });
    expect(await new KubernetesScaleTargets(kc).readScale(web)).toMatchObject({ specReplicas: 2, readyReplicas: 2 });
    expect(authorizations()).toEqual(['Bearer file-token']);
  });

  it('defaults to ~/.kube/config', () => {
    expect(loadKubeConfig({}, { homeDir: home }).getCurrentCluster()?.server).toBe(sim.url);
  });

  it('selects a context that exists', () => {
    expect(loadKubeConfig({ kubeconfig: '~/.kube/config', context: 'drover-sim' }, { homeDir: home }).getCurrentContext()).toBe('drover-sim');
  });

  it.each([
    { name: 'an unknown context is named', access: { kubeconfig: '~/.kube/config', context: 'prod' }, error: /kubernetes\.context: "prod" is not in/ },
    { name: 'a missing file is named', access: { kubeconfig: '~/nope/config' }, error: /kubernetes\.kubeconfig: cannot load .*nope\/config/ },
    { name: 'kubeconfig and inCluster together are refused', access: { kubeconfig: '~/.kube/config', inCluster: true }, error: /either kubeconfig or inCluster/ },
  ])('$name', ({ access, error }) => {
    expect(() => loadKubeConfig(access, { homeDir: home })).toThrow(error);
  });
});

describe('loadKubeConfig in cluster', () => {
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  afterEach(() => {
    for (const [key, value] of [['KUBERNETES_SERVICE_HOST', saved.host], ['KUBERNETES_SERVICE_PORT', saved.port]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('uses the service account: API server from the environment, its CA and token files', () => {
    process.env.KUBERNETES_SERVICE_HOST = '10.0.0.1';
    process.env.KUBERNETES_SERVICE_PORT = '443';
    const kc = loadKubeConfig({ inCluster: true }, { inClusterPathPrefix: '/sandbox' });
    expect(kc.getCurrentCluster()).toMatchObject({
      server: 'https://10.0.0.1:443',
      caFile: '/sandbox/var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
    });
    expect(kc.getCurrentUser()?.authProvider).toMatchObject({
      config: { tokenFile: '/sandbox/var/run/secrets/kubernetes.io/serviceaccount/token' },
    });
  });
});

/** A credential handing out numbered tokens valid for an hour of the manual clock. */
function fakeCredential(clock: ManualClock) {
  const scopes: (string | string[])[] = [];
  let failNext = false;
  const credential: TokenCredential = {
    getToken: (scope) => {
      scopes.push(scope);
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('Entra ID unreachable'));
      }
      const token: AccessToken = { token: `entra-${scopes.length}`, expiresOnTimestamp: clock.now() + HOUR };
      return Promise.resolve(token);
    },
  };
  return { credential, scopes, failOnce: () => (failNext = true) };
}

describe('loadKubeConfig with auth: azure', () => {
  function setup() {
    const clock = new ManualClock();
    const fake = fakeCredential(clock);
    const kc = loadKubeConfig({ kubeconfig: '~/.kube/config', auth: 'azure' }, { homeDir: home, credential: fake.credential, clock });
    return { clock, fake, api: new KubernetesScaleTargets(kc), kc };
  }

  it('keeps the kubeconfig cluster but sends an Entra ID token for AKS instead of its user', async () => {
    const { fake, api, kc } = setup();
    await api.readScale(web);
    expect(kc.getCurrentCluster()?.server).toBe(sim.url);
    expect(authorizations()).toEqual(['Bearer entra-1']);
    expect(fake.scopes).toEqual([AKS_SCOPE]);
  });

  it('reuses the token until shortly before it expires, then fetches a new one', async () => {
    const { clock, fake, api } = setup();
    await api.readScale(web);
    clock.advance(HOUR - 5 * 60_000 - 1);
    await api.readScale(web);
    clock.advance(1);
    await api.readScale(web);
    expect(authorizations()).toEqual(['Bearer entra-1', 'Bearer entra-1', 'Bearer entra-2']);
    expect(fake.scopes).toHaveLength(2);
  });

  it('shares one token fetch between concurrent requests', async () => {
    const { fake, api } = setup();
    await Promise.all([api.readScale(web), api.readScale(web), api.readScale(web)]);
    expect(fake.scopes).toHaveLength(1);
  });

  it('keeps using a still valid token when a refresh fails, and fails once it has expired', async () => {
    const { clock, fake, api } = setup();
    await api.readScale(web);
    clock.advance(HOUR - 60_000);
    fake.failOnce();
    await api.readScale(web);
    expect(authorizations()).toEqual(['Bearer entra-1', 'Bearer entra-1']);
    clock.advance(60_000);
    fake.failOnce();
    await expect(api.readScale(web)).rejects.toThrow(/Entra ID unreachable/);
  });
});
