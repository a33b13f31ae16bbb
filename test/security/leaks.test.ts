/**
 * What Drover writes where someone else reads it (log lines, decisions, target rows, the status
 * body) carries no credential and no forged line, whatever the kubeconfig, the queue message or
 * the configured URLs hold. Driven through the functions as the host calls them.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import azureFunctions from '@azure/functions';
import fc from 'fast-check';
import { reconcileQueue, status } from '../../src/handlers/registrations.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { consoleLog, errorMessage } from '../../src/log.js';
import { decodeMessage, reconcileMessageSchema } from '../../src/queue/messages.js';
import { PRINTABLE, redact } from '../../src/redact.js';
import { describeLoadError, loadKubeConfig } from '../../src/kubernetes/kubeconfig.js';
import { startKubernetesSim, type KubernetesSim } from '../../sim/kubernetes/server.js';
import { azuriteStorage, tempDir, writeConfig } from '../support/config.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.s3cr3t-kube-token';
const KEY_DATA = 'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=';
const SIGNATURE = 'sv=2024&sig=Zm9yZ2VkLXNpZ25hdHVyZQ%3D%3D';

/** A kubeconfig whose user entry breaks the YAML on the very line that holds the token. */
const BROKEN_KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: aks
  cluster:
    server: https://127.0.0.1:6443
users:
- name: admin
  user:
    client-key-data: ${KEY_DATA}
    token: ${TOKEN}: [unclosed
contexts:
- name: aks
  context: { cluster: aks, user: admin }
current-context: aks
`;

const SECRETS = [TOKEN, 's3cr3t', KEY_DATA.slice(0, 12), 'Zm9yZ2Vk'];

const logs: string[] = [];
const context = (name: string) =>
  new azureFunctions.InvocationContext({ functionName: name, logHandler: (level, ...args) => logs.push(`${level}: ${args.join(' ')}`) });

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

async function runtimeFor(configFile: string): Promise<Runtime> {
  const rt = await createRuntime({ configFile, env: {} });
  await rt.storage.ensure();
  return rt;
}

const statusRequest = (headers: Record<string, string> = {}) => new azureFunctions.HttpRequest({ method: 'GET', url: 'http://localhost/api/status', headers });

/** What an operator or a function-key holder can read after a pass. */
async function everythingVisible(rt: Runtime): Promise<string> {
  const decisions = await rt.decisions.recent(rt.clock.now());
  const targetRows = await rt.table('targets').list('web');
  const body = await status.handler(rt, statusRequest(), context('status'));
  const page = await status.handler(rt, statusRequest({ accept: 'text/html' }), context('status'));
  return [logs.join('\n'), JSON.stringify(decisions), JSON.stringify(targetRows.map((r) => r.props)), JSON.stringify(body.jsonBody), String(page.body)].join('\n');
}

describe('a kubeconfig with a token on a broken line', () => {
  let dir: string;
  let rt: Runtime;
  beforeAll(async () => {
    dir = tempDir();
    writeFileSync(path.join(dir, 'kubeconfig.yaml'), BROKEN_KUBECONFIG);
    const configFile = writeConfig(
      {
        storage: azuriteStorage(),
        kubernetes: { kubeconfig: './kubeconfig.yaml' },
        targets: [{ name: 'web', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'web' } }],
      },
      dir,
    );
    rt = await runtimeFor(configFile);
  });

  it('is reported by line and column, without the text around the error', () => {
    let caught: unknown;
    try {
      loadKubeConfig({ kubeconfig: path.join(dir, 'kubeconfig.yaml') });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    const error = caught as Error;
    expect(error.message).toMatch(/kubeconfig\.yaml: not valid YAML at line 11, column \d+$/);
    expect(error.cause).toBeUndefined();
    expectNoSecret(error.message);
  });

  it('leaves no token text in logs, decisions, the target row or the status body', async () => {
    logs.length = 0;
    await reconcileQueue.handler(rt, { kind: 'target', name: 'web', reason: 'forced' }, context('reconcileQueue')).catch((error: unknown) => {
      // The host logs what the handler throws: that text must be clean too.
      logs.push(`thrown: ${errorMessage(error)}`);
    });
    const visible = await everythingVisible(rt);
    expect(visible).toMatch(/not valid YAML at line 11/);
    expectNoSecret(visible);
  });
});

describe('queue message reasons and URLs', () => {
  let kube: KubernetesSim;
  let rt: Runtime;
  beforeAll(async () => {
    kube = await startKubernetesSim({ readyDelayMs: 0 });
    kube.add({ kind: 'Deployment', namespace: 'default', name: 'web' }, { replicas: 1 });
    const dir = tempDir();
    writeFileSync(path.join(dir, 'kubeconfig.yaml'), kube.kubeconfigYaml());
    const configFile = writeConfig({
      storage: azuriteStorage(),
      targets: [
        {
          name: 'web',
          minScale: 1,
          scaleTargetRef: { kind: 'Deployment', name: 'web' },
          load: { source: 'http', url: `http://127.0.0.1:9/load?${SIGNATURE}`, timeout: '200ms', targetPerReplica: 1 },
        },
      ],
      kubernetes: { kubeconfig: './kubeconfig.yaml' },
    }, dir);
    rt = await runtimeFor(configFile);
  });
  afterAll(async () => {
    await kube.close();
  });

  it('a reason with control characters is refused without being echoed', () => {
    const forged = 'forced\n2026-01-01T00:00:00Z info: target/web: scaled to 0\u001b[2K';
    const decoded = decodeMessage(reconcileMessageSchema, { kind: 'target', name: 'web', reason: forged });
    expect(decoded).toEqual({ ok: false, reason: 'reason: control characters are not allowed' });
  });

  it('a reason with control characters never reaches a log line as is', async () => {
    logs.length = 0;
    const forged = 'x\r\ninfo: target/web: scaled to 0';
    await reconcileQueue.handler(rt, JSON.stringify({ kind: 'target', name: 'web', reason: forged }), context('reconcileQueue'));
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) expect(/[\r\n]/.test(line), line).toBe(false);
  });

  it('a URL with ?sig= in a reason, a load URL or an error never reaches a log line, a decision or lastError as is', async () => {
    logs.length = 0;
    await reconcileQueue
      .handler(rt, { kind: 'target', name: 'web', reason: `asked by https://hooks.example/run?${SIGNATURE}` }, context('reconcileQueue'))
      .catch((error: unknown) => logs.push(`thrown: ${errorMessage(error)}`));
    const visible = await everythingVisible(rt);
    expect(visible).toContain('http://127.0.0.1:9/load?[redacted]');
    expectNoSecret(visible);
    expect(visible).not.toMatch(/sig=(?!\[redacted\])/);
  });

  it('the console logger redacts as the invocation logger does', () => {
    const lines: unknown[][] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => lines.push(args);
    try {
      consoleLog.warn(`probe of https://web.example/healthz?${SIGNATURE} failed\nforged line`, new Error(`AccountKey=${KEY_DATA};`));
    } finally {
      console.warn = original;
    }
    expect(lines).toEqual([['probe of https://web.example/healthz?[redacted] failed\\u000aforged line', 'AccountKey=[redacted];']]);
  });
});

describe('the status function when it cannot answer', () => {
  /** A runtime whose every part fails the way a storage call with a key in its text would. */
  const broken = new Proxy({} as Runtime, {
    get() {
      throw new Error(`cannot reach https://st.table.core.windows.net/droverleases?${SIGNATURE} (AccountKey=${KEY_DATA};)`);
    },
  });

  it('returns a generic body with an id, and logs the details under that id', async () => {
    logs.length = 0;
    const res = await status.handler(broken, statusRequest(), context('status'));
    expect(res.status).toBe(500);
    const body = res.jsonBody as { error: string; errorId: string };
    expect(Object.keys(body).sort()).toEqual(['error', 'errorId']);
    expect(body.error).not.toMatch(/st\.table|droverleases|AccountKey/);
    expect(logs.join('\n')).toContain(body.errorId);
    expect(logs.join('\n')).toContain('https://st.table.core.windows.net/droverleases?[redacted]');
    expectNoSecret(logs.join('\n'));
  });

  it('gives a browser a page with that id and no details', async () => {
    logs.length = 0;
    const res = await status.handler(broken, statusRequest({ accept: 'text/html' }), context('status'));
    expect(res.status).toBe(500);
    const html = String(res.body);
    expect(html).not.toMatch(/st\.table|droverleases|AccountKey/);
    expect(logs.join('\n')).toContain(/error id <code>([^<]+)<\/code>/.exec(html)![1]!);
  });
});

describe('redact', () => {
  it.each([
    { text: `GET https://st.queue.core.windows.net/q?${SIGNATURE} failed`, want: 'GET https://st.queue.core.windows.net/q?[redacted] failed' },
    { text: 'https://user:pa55@host/path#frag', want: 'https://[redacted]@host/path?[redacted]' },
    { text: `Endpoint=sb://x/;SharedAccessKey=${KEY_DATA}`, want: 'Endpoint=sb://x/;SharedAccessKey=[redacted]' },
    { text: `token: "${TOKEN}"`, want: 'token: [redacted]' },
    { text: 'a\tb\u0000c\u2028d', want: 'a\\u0009b\\u0000c\\u2028d' },
    { text: 'status code: 429 after 3 tries', want: 'status code: 429 after 3 tries' },
  ])('$text', ({ text, want }) => {
    expect(redact(text)).toBe(want);
  });

  it('whatever the text, the result has no control character and no query string value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.webUrl({ withQueryParameters: true }), fc.stringMatching(/^[A-Za-z0-9%]{8,20}$/), (text, url, value) => {
        const out = redact(`${text} ${url}${url.includes('?') ? '&' : '?'}sig=${value} ${text}`);
        expect(PRINTABLE.test(out)).toBe(true);
        expect(out).not.toContain(`sig=${value}`);
      }),
    );
  });

  it('a non-YAML load failure keeps its first line only', () => {
    expect(describeLoadError(new Error(`ENOENT: no such file\n${TOKEN}`))).toBe('ENOENT: no such file');
  });
});
