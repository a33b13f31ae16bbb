/**
 * `--report FILE`: the budget's trade-off first (trade-off.ts); then per trace and kind, the
 * demand and each policy's supply (ready units) on one time axis over the scored window, with the
 * trace's load on the right axis — the replay report's page and charts (src/replay/html.ts) —
 * and a PNG of the page taken by headless Chromium (playwright-core; at CHROMIUM_PATH or
 * /usr/bin/chromium), when there is one.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { downsample, renderReportPage, reportGrid, type ReportChart } from '../../src/replay/html.js';
import { Timeline } from '../../src/replay/timeline.js';
import type { FleetStep } from './metrics.js';
import { charted, type TraceKindResult } from './score-trace.js';
import { MINUTE_MS } from './traces.js';
import { tradeOffSection } from './trade-off.js';

const COLORS = ['#1f77b4', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

function stepsTimeline(steps: readonly FleetStep[]): Timeline {
  const timeline = new Timeline();
  for (const s of steps) timeline.record(s.at, 0, s.billed, s.billed, s.supply);
  return timeline;
}

function demandTimeline(r: TraceKindResult): Timeline {
  const timeline = new Timeline();
  r.demand.forEach((d, m) => timeline.record(r.trace.startMs + m * MINUTE_MS, r.trace.load[m]!, d, d, d));
  return timeline;
}

export function qualityChart(r: TraceKindResult): ReportChart {
  const from = r.trace.startMs + r.trace.scoredFrom * MINUTE_MS;
  const grid = reportGrid(from, r.trace.startMs + r.trace.scoredTo * MINUTE_MS);
  const demand = demandTimeline(r);
  // The other budgets' and the warm buffer's supply would lie over the default's: their figures are in the summaries.
  const drawn = r.results.filter((p) => charted(p.role));
  return {
    title: `${r.trace.title}, ${r.kind}`,
    x: grid.map((ms) => ms / 1000),
    unitsLabel: r.kind === 'vms' ? 'VMs' : 'pods',
    series: [
      { label: 'load', values: downsample(demand, 'load', grid), load: true },
      { label: 'demand', values: downsample(demand, 'ready', grid), color: '#000' },
      ...drawn.map((p, i) => ({ label: `supply: ${p.policy}`, values: downsample(stepsTimeline(p.steps), 'ready', grid, 'min'), color: COLORS[i % COLORS.length]! })),
    ],
    summaries: r.results.map((p) => ({
      config: p.policy,
      summary: { 'θU %': p.scores.thetaU.toFixed(2), 'τU %': p.scores.tauU.toFixed(2), 'cost ÷ demand': p.scores.costPerDemand.toFixed(2), actions: p.actions ?? '—' },
    })),
  };
}

/** Writes the page to `file` and, with Chromium at hand, its PNG to `png`; returns the PNG's path when written. */
export async function writeQualityReport(results: readonly TraceKindResult[], file: string, png: string): Promise<string | undefined> {
  await writeFile(file, await renderReportPage('drover quality bench', results.map(qualityChart), tradeOffSection(results)));
  const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromiumPath)) return undefined;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'], timeout: 60_000 });
  try {
    const page = await (await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(pathToFileURL(path.resolve(file)).href, { timeout: 60_000 });
    await page.locator('.uplot canvas').nth(results.length - 1).waitFor({ timeout: 60_000 });
    await mkdir(path.dirname(png), { recursive: true });
    await page.screenshot({ path: png, fullPage: true, timeout: 60_000 });
    return png;
  } finally {
    await browser.close();
  }
}
