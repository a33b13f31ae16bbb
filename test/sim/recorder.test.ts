// The exchange recorder: what the simulators and the fault proxy write for the API check.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKubernetesSim } from '../../sim/kubernetes/server.js';
import { startProxy } from '../../sim/fault-proxy.js';
import type { RecordedExchange } from '../../sim/recorder.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drover-recorder-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function exchanges(): Promise<RecordedExchange[]> {
  const files = await readdir(dir);
  const lines = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
  return lines.flatMap((text) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as RecordedExchange));
}

describe('the recorder', () => {
  it('records a request with its body and the answer, the token only as present', async () => {
    const sim = await startKubernetesSim({ recordDir: dir });
    sim.add({ kind: 'Deployment', namespace: 'default', name: 'web' }, { replicas: 2 });
    try {
      const res = await fetch(`${sim.url}/apis/apps/v1/namespaces/default/deployments/web/scale`, {
        method: 'PATCH',
        headers: { authorization: 'Bearer secret-token', 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ spec: { replicas: 3 } }),
      });
      await res.text();
    } finally {
      await sim.close();
    }
    const [exchange, ...rest] = await exchanges();
    expect(rest).toEqual([]);
    expect(exchange?.service).toBe('kubernetes');
    expect(exchange?.fault).toBeUndefined();
    expect(exchange?.request).toMatchObject({ method: 'PATCH', url: '/apis/apps/v1/namespaces/default/deployments/web/scale', body: { spec: { replicas: 3 } } });
    expect(exchange?.request.headers.authorization).toBe('present');
    expect(JSON.stringify(exchange)).not.toContain('secret-token');
    expect(exchange?.response).toMatchObject({ status: 200, body: { kind: 'Scale', spec: { replicas: 3 } } });
    expect(exchange?.response?.headers['content-type']).toBe('application/json');
  });

  it('records nothing without a folder', async () => {
    const sim = await startKubernetesSim({});
    try {
      await (await fetch(`${sim.url}/apis/apps/v1/namespaces/default/deployments/web`)).text();
    } finally {
      await sim.close();
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("tags the fault proxy's made-up answers and silences as faults; what it forwards the simulator records", async () => {
    const sim = await startKubernetesSim({ recordDir: dir });
    let n = 0;
    const proxy = await startProxy(sim.url, () => (++n === 1 ? { kind: 'forward' } : n === 2 ? { kind: 'answer', status: 429, body: 'busy' } : { kind: 'hold' }), { recordDir: dir });
    const path = '/apis/apps/v1/namespaces/default/deployments/web';
    try {
      await (await fetch(`${proxy.url}${path}`)).text();
      await (await fetch(`${proxy.url}${path}`)).text();
      await fetch(`${proxy.url}${path}`, { signal: AbortSignal.timeout(100) }).catch(() => undefined);
    } finally {
      await proxy.close();
      await sim.close();
    }
    const all = await exchanges();
    expect(all.map((e) => [e.fault ?? 'none', e.response?.status ?? null])).toEqual(
      expect.arrayContaining([['none', 404], ['scripted 429', 429], ['silence', null]]),
    );
    expect(all).toHaveLength(3);
  });
});
