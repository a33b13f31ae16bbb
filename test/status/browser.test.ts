/**
 * The status page in a real browser: Debian's Chromium, driven by playwright-core, loads the
 * page while a short version of the demo's story plays against Azurite and the simulators.
 * First on an injected clock, pass by pass: a scripted minute in which a VM fails and is
 * deleted and the target goes 1 → 3 → 1 → 0; the test reads the plotted points and the event
 * marks from the page and looks at it 390 px wide. Then on a local host in real time, a VM
 * vanishes from ARM's list while the capacity still counts it, which trips the safety switch.
 * Screenshots are left in test-results/.
 *
 * Without Chromium (at CHROMIUM_PATH or /usr/bin/chromium) the test reports itself skipped,
 * with the reason, so that `npm test` passes on a fresh machine; under CI=true it fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it, type TestContext } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.js';
import { registrations } from '../../src/handlers/registrations.js';
import { startLocalHost } from '../../src/host/local-host.js';
import { startStatusServer } from '../../src/host/status-server.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { buildStatus } from '../../src/status/status.js';
import type { ScaleSetApi } from '../../src/azure/scale-set-api.js';
import { startActivatorSim } from '../../sim/activator/server.js';
import { startWorld } from '../support/world.js';
import { pushLoad } from '../../src/queue/push.js';
import { pushThenReconcile } from '../support/push.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = path.resolve('test-results', 'status-page.png');
const MINUTE_SCREENSHOT = path.resolve('test-results', 'status-page-minute.png');
const NARROW_SCREENSHOT = path.resolve('test-results', 'status-page-390px.png');

function needChromium(ctx: TestContext): void {
  if (!existsSync(CHROMIUM)) {
    const reason = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
    if (process.env.CI === 'true') throw new Error(`${reason}: the browser test cannot be skipped under CI`);
    ctx.skip(true, reason);
  }
}

type Plotted = { data: (number | null)[][]; series: string[]; events: { at: number; text: string; kind: string }[] };

/** Each value a series takes on the page's chart, with the time (ms) it starts: the plotted steps (from its first point on). */
function steps(chart: Plotted, series: string): [number, number | null][] {
  const column = chart.data[chart.series.indexOf(series) + 1]!;
  const out: [number, number | null][] = [];
  chart.data[0]!.forEach((x, i) => {
    if (out.length === 0 ? column[i] !== null : out.at(-1)![1] !== column[i]) out.push([Math.round(x! * 1000), column[i]!]);
  });
  return out;
}

it('draws a scripted minute with each change at its own time, marks its events, and fits 390 px', async (ctx) => {
  needChromium(ctx);
  const world = await startWorld();
  const activator = await startActivatorSim();
  const scaleSet = world.arm.sim.addScaleSet({ resourceGroup: 'rg', name: 'vmss-workers', capacity: 2 });
  scaleSet.failNextCreations(1);
  const webRef = { kind: 'Deployment' as const, namespace: 'default', name: 'web' };
  world.kube.add(webRef, { replicas: 1, readyReplicas: 1 });
  const configFile = world.configFile({
    pools: [
      {
        name: 'workers',
        scaleSet: { resourceGroup: 'rg', name: 'vmss-workers' },
        maxCount: 4,
        chunkSize: 2,
        reconcileRate: '0s,1',
        creationRate: '0s,2',
        instanceCache: { ttl: '0s' },
        enableFastDeleteOnFailedProvisioning: true,
      },
    ],
    targets: [
      {
        name: 'web',
        scaleTargetRef: webRef,
        // The scripted minute is Knative's 1 → 3 → 1 → 0.
        policy: 'knative',
        minScale: 0,
        maxScale: 10,
        scaleToZero: { enabled: true, stableWindow: '20s', gracePeriod: '10s' },
        activator: { probeUrl: activator.probeUrl, probePeriod: '1s', probeTimeout: '30s' },
        load: { source: 'push', targetPerReplica: 10 },
      },
    ],
  });
  const t0 = Math.floor(Date.now() / 60_000) * 60_000;
  const clock = new ManualClock(t0);
  const rt = await createRuntime({ configFile, clock });
  await rt.storage.ensure();
  const http = registrations.find((r) => r.trigger === 'http')!;
  const server = await startStatusServer({ handler: (request, context) => http.handler(rt, request, context), port: 0, log: silentLog });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    // The minute, pass by pass at its second: the simulators' own delays (50 ms) pass in real time between them.
    const pool = () => reconcileObject(rt, { kind: 'pool', name: 'workers' }, { reason: 'timer' }, { log: silentLog });
    const web = (load?: number) => load === undefined ? reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'timer' }, { log: silentLog }) : pushThenReconcile(rt, { kind: 'target', name: 'web' }, load, { reason: 'timer' }, { log: silentLog });
    const script: [number, () => Promise<unknown>][] = [
      [0, pool], [1, () => web()], [5, () => web(25)], [10, pool], [12, () => web()], [20, pool], [30, () => web(0)],
      [35, () => web()], [42, () => web()], [47, () => web()], [52, () => web()], [57, () => web()],
    ];
    const scaled: number[] = [];
    for (const [second, pass] of script) {
      clock.set(t0 + second * 1000);
      const outcome = (await pass()) as Awaited<ReturnType<typeof reconcileObject>>;
      if (outcome.status === 'done' && /^scaled /.test(outcome.decision.decision)) scaled.push(second * 1000);
      await new Promise((r) => setTimeout(r, 300));
    }
    clock.set(t0 + 59_000);

    const page = await browser.newPage({ viewport: { width: 1200, height: 1600 } });
    await open(page, server.url);
    const charts = await page.evaluate<Record<string, Plotted>>('window.droverCharts');
    const target = charts['chart-target_2fweb']!;
    const workers = charts['chart-pool_2fworkers']!;
    // web: 1 → 3 → 1 → 0, each step starting at the second of the pass that made it.
    const scale = steps(target, 'scale');
    expect(scale.map(([, v]) => v)).toEqual([1, 3, 1, 0]);
    expect(scale.slice(1).map(([at]) => at - t0)).toEqual(scaled);
    // The load as pushed, at its own seconds: 25 at 5 s, 0 at 30 s.
    expect(steps(target, 'load').map(([at, v]) => [at - t0, v])).toEqual([[5_000, 25], [30_000, 0]]);
    // workers: the raise at 0 s; the failed VM counted broken and deleted by the pass at 10 s.
    const at = (series: string) => steps(workers, series).map(([ms, v]) => [ms - t0, v]);
    // The failed VM is deleted by the pass that first lists it (fast delete): a mark, then one VM deleting.
    expect({ capacity: at('capacity'), deleting: at('deleting'), healthy: at('healthy'), inventory: at('inventory') }).toEqual({
      capacity: [[0, 4], [20_000, 3]],
      deleting: [[0, 0], [10_000, 1], [20_000, 0]],
      healthy: [[0, 2], [10_000, 3]],
      inventory: [[0, 4], [20_000, 3]],
    });
    const marks = workers.events.map((e) => [Math.round(e.at * 1000) - t0, e.kind]);
    expect(marks).toEqual(expect.arrayContaining([[0, 'adopted'], [10_000, 'failed'], [10_000, 'deleted']]));
    expect(await page.locator('.object[data-object="pool/workers"] li.event-deleted').count()).toBe(1);
    // The legends show the values now without a hover.
    const legend = await page.locator('.object[data-object="target/web"] .u-legend').innerText();
    expect(legend).not.toContain('--');
    expect(legend).toMatch(/scale:?\s*0(?![\d.])/);
    expect(legend).toMatch(/load:?\s*0(?![\d.])/);
    mkdirSync(path.dirname(MINUTE_SCREENSHOT), { recursive: true });
    await page.screenshot({ path: MINUTE_SCREENSHOT, fullPage: true });

    // 390 px wide: the page, its charts and its tables reflow; nothing runs off the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await open(page, server.url);
    const overflow = await page.evaluate<string[]>(`(() => {
      const wide = [];
      const check = (el, name) => { if (el.scrollWidth > el.clientWidth + 1) wide.push(name + ': ' + el.scrollWidth + ' > ' + el.clientWidth); };
      check(document.documentElement, 'document');
      document.querySelectorAll('.chart, .timeline, .decisions, .decisions table, .object').forEach((el, i) => check(el, el.className + '#' + i));
      for (const c of document.querySelectorAll('.chart canvas')) if (c.getBoundingClientRect().right > window.innerWidth) wide.push('canvas');
      return wide;
    })()`);
    expect(overflow).toEqual([]);
    await page.screenshot({ path: NARROW_SCREENSHOT, fullPage: true });
  } finally {
    await browser.close();
    await server.close();
    await activator.close();
    await world.close();
  }
}, 90_000);

it('draws the pool and target timelines with data points and shows a tripped safety switch', async (ctx) => {
  needChromium(ctx);
  const world = await startWorld();
  const scaleSet = world.arm.sim.addScaleSet({ resourceGroup: 'rg', name: 'vmss-workers', capacity: 2 });
  world.kube.add({ kind: 'Deployment', namespace: 'default', name: 'web' }, { replicas: 1, readyReplicas: 1 });
  const configFile = world.configFile({
    pools: [{ name: 'workers', scaleSet: { resourceGroup: 'rg', name: 'vmss-workers' }, maxCount: 4, chunkSize: 2, reconcileRate: '0s,1', creationRate: '0s,2', instanceCache: { ttl: '0s' } }],
    targets: [{ name: 'web', minScale: 1, maxScale: 10, scaleTargetRef: { kind: 'Deployment', namespace: 'default', name: 'web' }, load: { source: 'push', targetPerReplica: 10 } }],
  });
  // ARM's list can leave out a VM the capacity still counts: the view the safety switch refuses to act on.
  const real = await (await createRuntime({ configFile })).scaleSetApi();
  let hidden: string | undefined;
  const scaleSetApi: ScaleSetApi = {
    getScaleSet: (...a) => real.getScaleSet(...a),
    listVms: async (...a) => {
      const listing = await real.listVms(...a);
      return { ...listing, vms: listing.vms.filter((vm) => vm.name !== hidden) };
    },
    setCapacity: (...a) => real.setCapacity(...a),
    deleteInstances: (...a) => real.deleteInstances(...a),
    setPower: (...a) => real.setPower(...a),
  };
  const rt = await createRuntime({ configFile, adapters: { scaleSetApi } });
  const host = await startLocalHost({ rt, log: silentLog, schedule: '* * * * * *', runOnStartup: true, statusPort: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    // The story: the pool fills up to 4, web gets load 25 (10 a replica) and goes to 3.
    await pushLoad({ pushes: rt.stores.pushes, queues: rt.queues }, 'web', 25, 'browser test load');
    await until(rt, (s) => s.pools[0]?.scaleSet.capacity === 4 && s.pools[0].machines.length === 4 && s.targets[0]?.requestedScale === 3);
    const page = await browser.newPage({ viewport: { width: 1200, height: 1600 } });
    await open(page, host.statusUrl!);
    for (const object of ['pool/workers', 'target/web']) {
      const chart = page.locator(`.object[data-object="${object}"] .chart`);
      expect(Number(await chart.getAttribute('data-history-points')), `${object}: history rows on the page`).toBeGreaterThanOrEqual(1);
      expect(Number(await chart.getAttribute('data-points')), `${object}: points drawn`).toBeGreaterThanOrEqual(2);
    }
    // The lines are on the canvas: pixels in the colours of the series (lines that coincide cover each other).
    expect(await seriesPixels(page, 'pool/workers', [[31, 119, 180], [44, 160, 44], [214, 39, 40]])).toBeGreaterThan(50);
    expect(await seriesPixels(page, 'target/web', [[31, 119, 180], [255, 127, 14], [44, 160, 44], [140, 86, 75]])).toBeGreaterThan(50);
    expect(await page.locator('.safety-switch').count()).toBe(0);
    // The decision log filters by object, and the URL the page reloads with keeps the function key.
    await page.selectOption('#object-filter', 'pool/workers');
    expect(new URL(page.url()).search).toBe('?code=browser-test&refresh=0&object=pool%2Fworkers');
    expect(await page.locator('.decisions tr[data-object="target/web"]:visible').count()).toBe(0);
    expect(await page.locator('.decisions tr[data-object="pool/workers"]:visible').count()).toBeGreaterThan(0);

    // A VM drops out of ARM's list while the capacity still counts it: its inventory row is on one side only.
    const victim = scaleSet.vms()[0]!;
    hidden = victim.name;
    await until(rt, (s) => s.pools[0]?.safetySwitch !== null);
    const tripped = (await buildStatus(rt)).pools[0]!.safetySwitch!;
    await open(page, host.statusUrl!);
    const alert = page.locator('.object[data-object="pool/workers"] .safety-switch');
    expect(await alert.isVisible()).toBe(true);
    const shown = await alert.locator('li code').allTextContents();
    expect(shown).toEqual([...tripped.providerOnly, ...tripped.inventoryOnly]);
    expect(tripped.inventoryOnly.some((id) => id.endsWith(`/virtualMachines/${victim.instanceId}`))).toBe(true);
    // The timeline marks the moment the switch tripped.
    const marks = await page.evaluate<{ kind: string; text: string }[]>("window.droverCharts['chart-pool_2fworkers'].events");
    expect(marks).toContainEqual(expect.objectContaining({ kind: 'safety', text: 'safety switch tripped' }));
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  } finally {
    await browser.close();
    await host.stop();
    await world.close();
  }
}, 90_000);

/** Opens the page as a browser would, with a function key that must survive the reload, and waits for its charts. */
async function open(page: Page, url: string): Promise<void> {
  await page.goto(`${url}?code=browser-test&refresh=0`);
  await page.waitForFunction("document.querySelectorAll('.chart[data-points]').length === 2", undefined, { timeout: 10_000 });
}

/** Pixels of the given colours on an object's chart canvas (browser code as text: the tests have no DOM types). */
async function seriesPixels(page: Page, object: string, colours: [number, number, number][]): Promise<number> {
  return page.evaluate<number>(`(() => {
    const colours = ${JSON.stringify(colours)};
    let count = 0;
    for (const c of document.querySelectorAll('.object[data-object="${object}"] .chart canvas')) {
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < px.length; i += 4) {
        if (px[i + 3] > 200 && colours.some(([r, g, b]) => Math.abs(px[i] - r) < 8 && Math.abs(px[i + 1] - g) < 8 && Math.abs(px[i + 2] - b) < 8)) count++;
      }
    }
    return count;
  })()`);
}

async function until(rt: Runtime, done: (s: Awaited<ReturnType<typeof buildStatus>>) => boolean, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await buildStatus(rt);
    if (done(status)) return;
    if (Date.now() > deadline) throw new Error(`the story did not get there in ${timeoutMs} ms: ${JSON.stringify(status.pools.map((p) => [p.scaleSet.capacity, p.machines.length, p.safetySwitch]))} ${JSON.stringify(status.targets)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
