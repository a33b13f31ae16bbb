/**
 * The replay's HTML report in a real browser (Debian's Chromium through playwright-core),
 * opened from the file with the network cut: the inlined uPlot draws one chart per target,
 * with the summaries of both configurations, and the page throws nothing.
 *
 * Without Chromium (at CHROMIUM_PATH or /usr/bin/chromium) the test reports itself skipped,
 * with the reason; under CI=true it fails.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { tempDir, writeConfig } from '../support/config.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

it('draws a chart per target from the inlined uPlot, offline, with both summaries', async (ctx) => {
  if (!existsSync(CHROMIUM)) {
    const reason = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
    if (process.env.CI === 'true') throw new Error(`${reason}: the browser test cannot be skipped under CI`);
    ctx.skip(true, reason);
  }
  const dir = tempDir();
  const target = (name: string, targetPerReplica: number) => ({
    name,
    scaleTargetRef: { kind: 'Deployment', name },
    activator: { probeUrl: 'http://127.0.0.1:1/healthz' },
    load: { source: 'push', targetPerReplica },
  });
  const a = writeConfig({ kubernetes: {}, targets: [target('web', 10), target('api', 10)] }, dir, 'a.yaml');
  const b = writeConfig({ kubernetes: {}, targets: [target('web', 5), target('api', 5)] }, dir, 'b.yaml');
  const trace = path.join(dir, 'trace.csv');
  const lines = ['time,target,load'];
  for (let s = 0; s < 1_200; s += 10) lines.push(`${s},web,${s < 600 ? 45 : 0}`, `${s},api,${s % 300 < 100 ? 20 : 5}`);
  writeFileSync(trace, `${lines.join('\n')}\n`);
  const out = path.join(dir, 'report.html');
  const code = await runCli(['--config', a, 'replay', '--trace', trace, '--compare', b, '--out', out], { stdout: () => undefined, stderr: () => undefined, env: {} });
  expect(code).toBe(0);

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext({ offline: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(out).href);
    await page.locator('.uplot canvas').nth(1).waitFor();
    expect(errors).toEqual([]);
    expect(await page.locator('.uplot').count()).toBe(2);
    expect(await page.locator('h2').allTextContents()).toEqual(['target web', 'target api']);
    // Load, then desired and ready of each configuration.
    expect(await page.locator('.uplot').first().locator('.u-legend .u-series').count()).toBe(1 + 5);
    expect(await page.locator('section').first().locator('table.summary th').allTextContents()).toEqual(['', a, b]);
  } finally {
    await browser.close();
  }
});
