/**
 * The status page in a real browser: Debian's Chromium, driven by playwright-core, loads the
 * page from a local host on which a short version of the demo's story plays against the
 * simulators (the pool raises its capacity, load arrives for the target, then a VM vanishes
 * from ARM's list while the capacity still counts it, which trips the safety switch). A screenshot is left in test-results/.
 *
 * Without Chromium (at CHROMIUM_PATH or /usr/bin/chromium) the test reports itself skipped,
 * with the reason, so that `npm test` passes on a fresh machine; under CI=true it fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import { startLocalHost } from '../../src/host/local-host.js';
import { silentLog } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { buildStatus } from '../../src/status/status.js';
import type { ScaleSetApi } from '../../src/azure/scale-set-api.js';
import { startWorld } from '../support/world.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = path.resolve('test-results', 'status-page.png');

it('draws the pool and target timelines with data points and shows a tripped safety switch', async (ctx) => {
  if (!existsSync(CHROMIUM)) {
    const reason = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
    if (process.env.CI === 'true') throw new Error(`${reason}: the browser test cannot be skipped under CI`);
    ctx.skip(true, reason);
  }
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
  };
  const rt = await createRuntime({ configFile, adapters: { scaleSetApi } });
  const host = await startLocalHost({ rt, log: silentLog, schedule: '* * * * * *', runOnStartup: true, statusPort: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    // The story: the pool fills up to 4, web gets load 25 (10 a replica) and goes to 3.
    await rt.queues.reconcile({ kind: 'target', name: 'web', reason: 'browser test load', load: 25 });
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
