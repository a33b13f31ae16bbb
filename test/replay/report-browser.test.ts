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

interface PlotView {
  labels: string[];
  width: number;
  series: { label: string; stroke: string; dash: number[] | null; width: number }[];
  legend: string[];
}

/** The report of one replay of a `seconds`-long trace timed in seconds, as its first chart draws it. */
async function reportOf(seconds: number, compareWithItself: boolean): Promise<PlotView> {
  const dir = tempDir();
  const config = writeConfig(
    { targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, activator: { probeUrl: 'http://127.0.0.1:1/healthz' }, load: { source: 'push', targetPerReplica: 10 } }] },
    dir,
    'a.yaml',
  );
  const trace = path.join(dir, 'trace.csv');
  const lines = ['time,load'];
  for (let s = 0; s <= seconds; s += Math.max(1, seconds / 120)) lines.push(`${Math.round(s)},${s < seconds / 2 ? 45 : 5}`);
  writeFileSync(trace, `${lines.join('\n')}\n`);
  const out = path.join(dir, 'report.html');
  const args = ['--config', config, 'replay', '--trace', trace, '--out', out, ...(compareWithItself ? ['--compare', config] : [])];
  expect(await runCli(args, { stdout: () => undefined, stderr: () => undefined, env: {} })).toBe(0);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const page = await (await browser.newContext({ offline: true, viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(pathToFileURL(out).href);
    await page.locator('.uplot canvas').first().waitFor();
    return await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ textContent: string | null }> } }).document;
      type Plot = { width: number; axes: { _values: string[] }[]; series: { label: string; stroke: () => string; dash?: number[]; width: number }[] };
      const u = (globalThis as unknown as { replayPlots: Plot[] }).replayPlots[0]!;
      return {
        labels: u.axes[0]!._values,
        width: u.width,
        series: u.series.slice(1).map((s) => ({ label: s.label, stroke: String(typeof s.stroke === 'function' ? s.stroke() : s.stroke), dash: s.dash ?? null, width: s.width })),
        legend: [...doc.querySelectorAll('.u-legend .u-series .u-value')].map((e) => e.textContent ?? ''),
      };
    });
  } finally {
    await browser.close();
  }
}

it('labels the time axis in 24-hour UTC times, spaced apart, with seconds only for a short trace; compared series stay apart', async (ctx) => {
  if (!existsSync(CHROMIUM)) {
    if (process.env.CI === 'true') throw new Error(`no Chromium at ${CHROMIUM}: the browser test cannot be skipped under CI`);
    ctx.skip(true, `no Chromium at ${CHROMIUM}`);
  }
  const long = await reportOf(1_200, true);
  expect(long.labels.length).toBeGreaterThan(3);
  // No two labels closer than the axis's 80 px: ticks at most a width's worth of 80 px.
  expect(long.labels.length).toBeLessThanOrEqual(Math.ceil(long.width / 80));
  for (const label of long.labels) expect(label).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
  expect(long.labels[0]).toMatch(/^00:/);
  expect(new Set(long.labels).size).toBe(long.labels.length);
  // The same configuration twice: its series are equal, and told apart by colour, width and dash.
  const [, desiredA, readyA, desiredB, readyB] = long.series;
  expect([desiredA!.label, desiredB!.label]).toEqual([expect.stringMatching(/^desired /), expect.stringMatching(/^desired /)]);
  expect(desiredA!.stroke).not.toBe(desiredB!.stroke);
  expect(readyA!.stroke).not.toBe(readyB!.stroke);
  expect([desiredA!.dash, desiredB!.dash]).toEqual([null, [6, 4]]);
  expect(desiredB!.width).toBeLessThan(desiredA!.width);
  // The legend shows the last values before any hovering.
  expect(long.legend.slice(0, 2)).toEqual(['00:20:00', '5']);
  expect(long.legend.slice(2).filter((v) => !/^\d+$/.test(v))).toEqual([]);

  const short = await reportOf(60, false);
  for (const label of short.labels) expect(label).toMatch(/^00:0[01]:[0-5]\d$/);
}, 60_000);
