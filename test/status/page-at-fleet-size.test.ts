/**
 * The status page at the documented maximum of 1,000 targets (`http` sources), each with an
 * hour of history, on a machine whose two cores are kept busy by two other processes: it
 * answers 200 within 10 s and under 4 MiB, reads the history of the objects it draws only (a
 * few at a time), lists the rest, and reaches any of them through `?match=` and `?object=`.
 * One object whose history does not answer costs only its own timeline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onStatusRequest } from '../../src/handlers/status-http.js';
import { startStatusServer, type StatusServer } from '../../src/host/status-server.js';
import { silentLog } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { writeTargetRecord } from '../../src/scaler/read/target-store.js';
import { historyWrites, type HistoryWrite, type WriterMemory } from '../../src/state/history-writes.js';
import { mapBounded } from '../../src/status/bounded.js';
import { buildStatusPage, HISTORY_READ_CONCURRENCY } from '../../src/status/page/status-page.js';
import { PAGE_SECTIONS } from '../../src/status/page/selection.js';
import { buildStatus } from '../../src/status/status.js';
import { azuriteStorage, writeConfig } from '../support/config.js';
import { startAzurite, type AzuriteHandle } from '../../sim/azurite.js';

const TARGETS = 1_000;
const MINUTE = 60_000;
/** Every 97th target's last reconcile failed: those are drawn first. */
const failing = (n: number) => n % 97 === 0;

let rt: Runtime;
let server: StatusServer;
/** An Azurite of this file's own: its 130,000 history rows must not slow every other file's. */
let azurite: AzuriteHandle | undefined;
let historyInFlight = { now: 0, peak: 0 };

/**
 * The last 65 minutes of one target's history as its passes would have written them: a change
 * and four load samples a minute (so the page's hour starts from a row of its first minute).
 */
function anHour(n: number, now: number): HistoryWrite[] {
  const rows = new Map<string, HistoryWrite>();
  let memory: WriterMemory = {};
  for (let step = 0; step < 260; step++) {
    const at = now - 65 * MINUTE + step * 15_000;
    const replicas = 1 + ((n + Math.floor(step / 4)) % 7);
    const samples = [{ at, value: replicas * 10 - 3 }];
    const events = step % 40 === 0 ? ['active'] : [];
    const written = historyWrites(memory, { kind: 'target', fields: { desired: replicas, scale: replicas, ready: replicas, active: 1 }, samples, events }, at);
    memory = written.memory;
    for (const row of written.rows) rows.set(row.rowKey, row);
  }
  return [...rows.values()];
}

/** Two processes spinning for at most `ms`: the machine's two cores busy while the page is asked for. */
function busyCores(ms: number): ChildProcess[] {
  const spin = `const end = Date.now() + ${ms}; while (Date.now() < end) {}`;
  return [0, 1].map(() => spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }));
}

async function page(query: string): Promise<{ status: number; ms: number; bytes: number; html: string }> {
  const started = Date.now();
  const res = await fetch(`${server.url}?${query}`, { headers: { accept: 'text/html' } });
  const html = await res.text();
  return { status: res.status, ms: Date.now() - started, bytes: Buffer.byteLength(html), html };
}

const drawnTargets = (html: string) => [...html.matchAll(/<section class="object target" id="target-([^"]+)"/g)].map((m) => m[1]);

describe('the status page at 1,000 targets', () => {
  beforeAll(async () => {
    const targets = Array.from({ length: TARGETS }, (_, n) => ({
      name: `web${n}`,
      scaleTargetRef: { kind: 'Deployment', name: `web${n}` },
      minScale: 1,
      load: { source: 'http', url: `http://127.0.0.1:9/load/${n}`, targetPerReplica: 10 },
    }));
    azurite = await startAzurite();
    const storage = { ...azuriteStorage(), connection: azurite.connectionString };
    rt = await createRuntime({ configFile: writeConfig({ storage, kubernetes: { kubeconfig: '/nonexistent' }, targets }), env: {} });
    await rt.storage.ensure();
    const now = rt.clock.now();
    await mapBounded([...targets.keys()], 16, async (n) => {
      await writeTargetRecord(rt.table('targets'), `web${n}`, 0, () => ({
        activeStatus: 'True',
        activeSince: now - 3_600_000,
        desiredScale: 3,
        requestedScale: 3,
        actualScale: 3,
        ...(failing(n) ? { lastError: `http://127.0.0.1:9/load/${n}: no answer within 2000 ms` } : {}),
      }));
      await rt.table('history').writeChanged(`target/web${n}`, anHour(n, now), []);
    });
    // Reads of an object's history in flight: each ends when it answers or its deadline aborts it.
    const read = rt.history.read.bind(rt.history);
    rt.history.read = (object, now, windowMs, signal) => {
      historyInFlight.peak = Math.max(historyInFlight.peak, ++historyInFlight.now);
      let ended = false;
      const end = () => {
        if (!ended) historyInFlight.now--;
        ended = true;
      };
      signal?.addEventListener('abort', end, { once: true });
      return read(object, now, windowMs, signal).finally(end);
    };
    server = await startStatusServer({ handler: (request, context) => onStatusRequest(rt, request, context), port: 0, log: silentLog });
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    await azurite?.stop();
  });

  it('answers 200 within 10 s and under 4 MiB with two cores busy, the failing targets drawn first and the others listed', async () => {
    historyInFlight = { now: 0, peak: 0 };
    const spinners = busyCores(20_000);
    let got: Awaited<ReturnType<typeof page>>;
    try {
      got = await page('');
    } finally {
      for (const s of spinners) s.kill('SIGKILL');
    }
    expect(got.status).toBe(200);
    expect(got.ms).toBeLessThan(10_000);
    expect(got.bytes).toBeLessThan(4 * 1024 * 1024);

    const drawn = drawnTargets(got.html);
    expect(drawn).toHaveLength(PAGE_SECTIONS);
    const failingNames = Array.from({ length: TARGETS }, (_, n) => n).filter(failing).map((n) => `web${n}`);
    expect(drawn.slice(0, failingNames.length).sort()).toEqual(failingNames.sort());
    expect(got.html).toContain(`other objects (${TARGETS - PAGE_SECTIONS})`);
    // Each drawn target has its timeline, or (its history slower than its deadline) a note in its place;
    // the histories are read a few objects at a time.
    const figures = got.html.match(/<figure class="timeline">/g) ?? [];
    const charted = got.html.match(/data-history-points="\d+"/g) ?? [];
    const notes = got.html.match(/timeline unavailable: (its history did not answer within \d+s|the page's 6s for reading histories ran out)/g) ?? [];
    expect(figures).toHaveLength(PAGE_SECTIONS);
    expect(charted.length + notes.length).toBe(PAGE_SECTIONS);
    expect(historyInFlight.peak).toBeGreaterThan(0);
    expect(historyInFlight.peak).toBeLessThanOrEqual(HISTORY_READ_CONCURRENCY);
  }, 60_000);

  it('reaches any target through ?match= and ?object=, and its listed row links to it', async () => {
    const matched = await page('match=WEB999');
    expect(matched.status).toBe(200);
    expect(drawnTargets(matched.html)).toEqual(['web999']);
    expect(matched.html).toContain('left out by the filter');

    const listed = await page('');
    expect(listed.html).toContain('<a href="?object=target%2Fweb500">target/web500</a>');
    const opened = await page('object=target%2Fweb500');
    expect(drawnTargets(opened.html)[0]).toBe('web500');
    // Its hour of history: some 60 change rows and 60 minutes of load.
    expect(opened.html).toMatch(/id="chart-target_2fweb500" data-history-points="1\d\d"/);
  }, 60_000);

  it('gives an object whose history does not answer a note in its own section, and the others their timelines', async () => {
    const status = await buildStatus(rt);
    const slow = 'target/web0';
    const built = await buildStatusPage(rt, status, new URLSearchParams(), {
      timeoutMs: 1_000,
      // web0's history never answers (whatever its signal says); every other one at once.
      readHistory: (object) => (object === slow ? new Promise(() => undefined) : Promise.resolve([])),
    });
    const sections = built.html
      .split('<section class="object target"')
      .slice(1)
      .map((s) => s.slice(0, s.indexOf('</section>')));
    const web0 = sections.find((s) => s.startsWith(' id="target-web0"'))!;
    expect(web0).toContain('timeline unavailable: its history did not answer within 1s');
    expect(sections.filter((s) => s.includes('timeline unavailable'))).toHaveLength(1);
    expect(sections.filter((s) => s.includes('class="chart"'))).toHaveLength(PAGE_SECTIONS - 1);
  }, 60_000);
});
