/**
 * The `prometheus` source against a real Prometheus server: Debian's `prometheus`, started on
 * loopback with a temporary data folder, scraping a target this test serves every second. The
 * readings go through the registry's reader and the production plan (plan-driver.ts).
 *
 * Without Prometheus (at PROMETHEUS_PATH or /usr/bin/prometheus) the test reports itself
 * skipped, with the reason, so that `npm test` passes on a fresh machine; under CI=true it fails
 * (.ci/run installs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { parseConfig } from '../../src/config/load.js';
import { kindOf } from '../../src/load/registry.js';
import type { SourcePorts, SourceReading } from '../../src/load/source-kind.js';
import { AZURE_PROMETHEUS_SCOPE, MAX_GET_URL } from '../../src/load/prometheus-source.js';
import { targetSettings } from '../../src/scaler/read/target-settings.js';
import { planDriver, T0 } from '../scaler/plan-driver.js';
import { tempDir } from '../support/temp-dirs.js';

const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';
const present = existsSync(PROMETHEUS);
if (!present && process.env.CI === 'true') throw new Error(`no Prometheus at ${PROMETHEUS} (apt-get install prometheus): the test cannot be skipped under CI`);

/** What the scraped target exposes; changed by the tests. */
const exposed = { inflight: 45, replicas: [3, 4] };
let target: Server;
let prometheus: ChildProcess | undefined;
let server = '';
let output = '';

function listen(s: Server): Promise<number> {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
}

async function freePort(): Promise<number> {
  const s = createServer();
  const port = await listen(s);
  await new Promise((r) => s.close(r));
  return port;
}

const ports = (over: Partial<SourcePorts> = {}): SourcePorts => ({
  credential: () => {
    throw new Error('no identity in this test');
  },
  setting: () => undefined,
  azure: { subscriptionId: undefined, resourceManagerEndpoint: 'https://management.azure.com' },
  target: { name: 'web', ref: { kind: 'kubernetes', ref: { kind: 'Deployment', namespace: 'default', name: 'web' } } },
  now: () => Date.now(),
  ...over,
});

const targetOf = (load: Record<string, unknown>) =>
  parseConfig({ kubernetes: { kubeconfig: '/nonexistent' }, targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, policy: 'knative', minScale: 1, maxScale: 20, maxScaleDownRate: 1000, load }] }).targets[0]!;

/** The target's settings as a reconcile takes them: its sources come to the plan combined, in replicas. */
const settingsOf = (load: Record<string, unknown>) => targetSettings(targetOf(load), 1);

/** The configured source as config load parses it, read once by its kind's reader. */
function read(load: Record<string, unknown>, over: Partial<SourcePorts> = {}): Promise<SourceReading> {
  const source = targetOf(load).load!.sources[0]!;
  return kindOf(source.source).open!(source, ports(over)).read(AbortSignal.timeout(10_000));
}

const source = (query: string, extra: Record<string, unknown> = {}) => ({ source: 'prometheus', serverAddress: server, query, targetPerReplica: 10, ...extra });

/** Until the query answers as wanted (Prometheus scrapes once a second). */
async function until(query: string, ok: (r: SourceReading) => boolean): Promise<SourceReading> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const got = await read(source(query));
    if (ok(got) || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  if (!present) return;
  target = createServer((req, res) => {
    const lines = [`drover_test_inflight ${exposed.inflight}`, ...exposed.replicas.map((v, i) => `drover_test_pods{pod="p${i}"} ${v}`)];
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(`${lines.join('\n')}\n`);
  });
  const targetPort = await listen(target);
  const dir = tempDir('drover-prometheus-');
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(config, `global: { scrape_interval: 1s, evaluation_interval: 1s }\nscrape_configs:\n  - job_name: drover-test\n    static_configs: [{ targets: ['127.0.0.1:${targetPort}'] }]\n`);
  const port = await freePort();
  server = `http://127.0.0.1:${port}`;
  prometheus = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
  prometheus.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  prometheus.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  const first = await until('drover_test_inflight', (r) => r.ok);
  if (!first.ok) throw new Error(`Prometheus did not scrape the target: ${first.error}\n${output}`);
}, 30_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((r) => prometheus!.once('exit', r));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await new Promise((r) => (target ? target.close(r) : r(undefined)));
});

describe.skipIf(!present)('the prometheus source against a real Prometheus', () => {
  it('follows a one-series query: 45 at 10 per replica → 5, then 15 → 2', async () => {
    const settings = settingsOf(source('drover_test_inflight'));
    const driver = planDriver(settings, { current: 1 });
    exposed.inflight = 45;
    const first = await until('drover_test_inflight', (r) => r.ok && r.value === 45);
    expect(first).toEqual({ ok: true, value: 45 });
    expect((await driver.step({ at: T0, load: undefined, sources: { load: 45 } })).written).toEqual([1, 5]);
    exposed.inflight = 15;
    const second = await until('drover_test_inflight', (r) => r.ok && r.value === 15);
    expect(second).toEqual({ ok: true, value: 15 });
    expect((await driver.step({ at: T0 + 60_000, load: undefined, sources: { load: 15 } })).written).toEqual([5, 2]);
  });

  it('reads no series as no reading, saying why, and the plan does not scale down', async () => {
    const got = await read(source('drover_test_inflight{absent="yes"}'));
    expect(got).toEqual({ ok: false, error: expect.stringMatching(/query "drover_test_inflight\{absent=\\"yes\\"\}" gave no series: no reading, so no scale-down/) });
    const settings = settingsOf(source('drover_test_inflight{absent="yes"}'));
    const out = await planDriver(settings, { current: 5 }).step({ at: T0, load: undefined, sources: { load: 'failed' } });
    expect(out.written).toBeUndefined();
  });

  it('reads no series as 0 with ignoreNullValues', async () => {
    expect(await read(source('drover_test_inflight{absent="yes"}', { ignoreNullValues: true }))).toEqual({ ok: true, value: 0 });
  });

  it('refuses two series, naming the query and the count', async () => {
    expect(await read(source('drover_test_pods'))).toEqual({ ok: false, error: expect.stringMatching(/query "drover_test_pods": gave 2 series, expected one/) });
    expect(await read(source('sum(drover_test_pods)'))).toEqual({ ok: true, value: 7 });
  });

  it('sends a query longer than a URL may be as a form POST, which the server answers', async () => {
    const long = `drover_test_inflight${' + 0'.repeat(Math.ceil(MAX_GET_URL / 4))}`;
    expect(await read(source(long))).toEqual({ ok: true, value: exposed.inflight });
  });

  it('fails within its timeout when the server does not answer', async () => {
    const silent = createServer(() => undefined);
    const port = await listen(silent);
    try {
      const got = await read({ source: 'prometheus', serverAddress: `http://127.0.0.1:${port}`, query: 'up', targetPerReplica: 1, timeout: '200ms' });
      expect(got).toEqual({ ok: false, error: expect.stringMatching(/no answer within 200 ms/) });
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});

describe('the prometheus source with auth', () => {
  /** A loopback stand-in for Azure Monitor's query endpoint that answers only the right bearer token. */
  async function checkingServer(token: string): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
    const seen: string[] = [];
    const s = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end('{"status":"error","error":"unauthorized"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"12"]}]}}');
    });
    const port = await listen(s);
    return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => s.close(() => r())) };
  }

  it('auth: azure sends the identity token for Azure Monitor managed Prometheus', async () => {
    const srv = await checkingServer('identity-token');
    const scopes: string[] = [];
    const credential: TokenCredential = {
      getToken: (scope): Promise<AccessToken> => {
        scopes.push(...[scope].flat());
        return Promise.resolve({ token: 'identity-token', expiresOnTimestamp: Date.now() + 3_600_000 });
      },
    };
    try {
      expect(await read({ source: 'prometheus', serverAddress: srv.url, query: 'up', targetPerReplica: 1, auth: 'azure' }, { credential: () => credential })).toEqual({ ok: true, value: 12 });
      expect(scopes).toEqual([AZURE_PROMETHEUS_SCOPE]);
      expect(srv.seen).toEqual(['Bearer identity-token']);
    } finally {
      await srv.close();
    }
  });

  it('auth: { bearerTokenSetting } sends the app setting, and a missing setting is a failure naming it', async () => {
    const srv = await checkingServer('from-setting');
    const load = { source: 'prometheus', serverAddress: srv.url, query: 'up', targetPerReplica: 1, auth: { bearerTokenSetting: 'PROM_TOKEN' } };
    try {
      expect(await read(load, { setting: (name) => (name === 'PROM_TOKEN' ? 'from-setting' : undefined) })).toEqual({ ok: true, value: 12 });
      expect(await read(load)).toEqual({ ok: false, error: expect.stringMatching(/app setting PROM_TOKEN \(bearerTokenSetting\) is not set/) });
      expect(srv.seen).toEqual(['Bearer from-setting']);
    } finally {
      await srv.close();
    }
  });

  it('refuses a token over plain http to a host that is not loopback', () => {
    const load = { source: 'prometheus', serverAddress: 'http://prom.example:9090', query: 'up', targetPerReplica: 1, auth: 'azure' };
    expect(() => targetOf(load)).toThrow(/targets\[0\]\.load\.serverAddress: expected https/);
  });
});
