/**
 * `npm run bench -- quality --quick`: one scored day of each trace, read from ../shared/traces
 * (the NASA `.tbz2` streamed through tar), both kinds of fleet, Drover through `drover replay`'s
 * code path in a worker thread as the bench runs it, and the incumbents and reference lines
 * beside it. Asserts the table's shape and values that must hold whatever the policy: every
 * metric in range, the reference lines' known answers, the goals where the issue sets them, and
 * the report page.
 *
 * Without the traces folder the test reports itself skipped, with the reason; under CI=true it fails.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultTracesDir, runQuality } from '../../bench/quality.js';
import { writeQualityReport } from '../../bench/quality/report.js';
import type { TraceKindResult } from '../../bench/quality/score-trace.js';
import { formatTable } from '../../bench/quality/table.js';
import { loadQualityTraces } from '../../bench/quality/traces.js';
import { bundledDroverWorker } from '../support/bench-worker.js';
import { tempDir } from '../support/config.js';
import { droverWorkers } from '../../bench/quality/workers.js';

const TRACES = process.env.DROVER_TRACES ?? defaultTracesDir();

describe('the quality bench, --quick', () => {
  it('refuses a missing traces folder, naming it and --traces', async () => {
    const missing = path.join(tempDir(), 'no-traces');
    await expect(loadQualityTraces(missing, true)).rejects.toThrow(new RegExp(`no traces folder at ${missing}.*--traces DIR`));
  });

  it('scores a day of each trace for VMs and pods: every policy, sane values, the goals', { timeout: 240_000 }, async (ctx) => {
    if (!existsSync(TRACES)) {
      const reason = `no traces at ${TRACES} (set DROVER_TRACES)`;
      if (process.env.CI === 'true') throw new Error(`${reason}: the quality bench test cannot be skipped under CI`);
      ctx.skip(true, reason);
    }
    // Drover's replays in a worker thread, as the bench runs them; one, since the suite runs
    // another file beside this one, and real-time tests there must not starve.
    const worker = await bundledDroverWorker();
    const printed: string[] = [];
    const results = await runQuality({ quick: true, traces: TRACES }, { start: () => droverWorkers(worker, 1), each: (r) => printed.push(`${r.trace.name} ${r.kind}`) });
    // Each trace and kind handed on as it is scored, in the table's order.
    expect(printed).toEqual(results.map((r) => `${r.trace.name} ${r.kind}`));
    expect(results.map((r) => `${r.trace.name} ${r.kind}`)).toEqual(['nasa-week', 'nasa-week-2', 'nasa-week-3', 'nasa-week-4', 'llm-code', 'llm-conv', 'ipsc'].flatMap((t) => [`${t} vms`, `${t} pods`]));
    for (const r of results) checkResult(r);
    const nasa = results[0]!;
    // One scored day (2 July) after three hours of warm-up (the end of 1 July), in NASA's units.
    expect(nasa.trace.scoredTo - nasa.trace.scoredFrom).toBe(1_440);
    expect(nasa.trace.scoredFrom).toBe(180);
    expect(nasa.demand).toHaveLength(1_620);
    expect(new Date(nasa.trace.startMs + nasa.trace.scoredFrom * 60_000).toISOString()).toBe(new Date(86_400_000).toISOString());
    expect(nasa.goals.map((g) => g.label)).toEqual([
      "θU % ≤ the better Azure Monitor rules'",
      "cost ÷ demand ≤ the cheaper Azure Monitor rules'",
      "actions ≤ the busier Azure Monitor rules'",
      'moonshot: θU % ≤ 1',
      "moonshot: cost ÷ demand ≤ 1.1 × foresight's",
    ]);
    expect(results[1]!.goals).toHaveLength(4);
    expect(results.find((r) => r.trace.name === 'llm-code')!.goals).toHaveLength(2);
    expect(results.find((r) => r.trace.name === 'ipsc')!.goals).toEqual([]);

    const table = formatTable(nasa).split('\n');
    expect(table[1]).toBe('| policy | θU % | θO % | τU % | τO % | cost ÷ demand | episodes | p50 / p95 / max min | actions |');
    expect(table.slice(3, 14).map((l) => l.split(' | ')[0])).toEqual([
      '| Drover defaults (Pool target)',
      '| Drover, policy: knative (the seed’s rules)',
      '| Drover, forecast: floor',
      '| Drover, warm.max: 10',
      '| Drover, headroom.underProvisioning: 0.5',
      '| Drover, headroom.underProvisioning: 2',
      '| Azure Monitor, tutorial rules (+3 above 70 %, −1 below 30 %)',
      '| Azure Monitor, portal rules (+1 above 70 %, −1 below 20 %)',
      expect.stringMatching(/^\| static peak fleet \(\d+\)$/),
      expect.stringMatching(/^\| static p95 fleet \(\d+\)$/),
      '| foresight (knows the next 180 s)',
    ]);
    expect(table.slice(14, 19).every((l) => /^ {2}(PASS|FAIL) {2}Drover /.test(l))).toBe(true);
    expect(table.slice(19)).toEqual([expect.stringMatching(/^ {2}budget {2}Azure Monitor, tutorial rules .*: beaten /), expect.stringMatching(/^ {2}budget {2}Azure Monitor, portal rules .*: beaten /)]);
    // The budget moves the default along its trade-off: half of it leaves less unserved at more cost, twice it the reverse.
    const [defaults, half, twice] = ['Drover defaults', 'Drover, headroom.underProvisioning: 0.5', 'Drover, headroom.underProvisioning: 2'].map((name) => nasa.results.find((p) => p.policy.startsWith(name))!.scores);
    expect(half!.thetaU).toBeLessThan(defaults!.thetaU);
    expect(twice!.thetaU).toBeGreaterThan(defaults!.thetaU);
    expect(half!.costPerDemand).toBeGreaterThan(defaults!.costPerDemand);
    expect(twice!.costPerDemand).toBeLessThan(defaults!.costPerDemand);
    // Only the NASA weeks' VMs carry them, and the warm buffer's row.
    const nasaVms = ['nasa-week vms', 'nasa-week-2 vms', 'nasa-week-3 vms', 'nasa-week-4 vms'];
    expect(results.filter((r) => r.results.some((p) => p.role === 'budget')).map((r) => `${r.trace.name} ${r.kind}`)).toEqual(nasaVms);
    const warmed = results.filter((r) => r.results.some((p) => p.policy === 'Drover, warm.max: 10'));
    expect(warmed.map((r) => `${r.trace.name} ${r.kind}`)).toEqual(nasaVms);
    // A warm buffer keeps the budget the default keeps, with no more churn: raises it serves by
    // starts teach no start-up delay, so the policy still plans for the creations past it.
    for (const r of warmed) {
      const [cold, warm] = ['Drover defaults', 'Drover, warm.max: 10'].map((name) => r.results.find((p) => p.policy.startsWith(name))!);
      expect(warm!.scores.thetaU).toBeLessThanOrEqual(1.25 * cold!.scores.thetaU);
      expect(warm!.actions!).toBeLessThanOrEqual(1.25 * cold!.actions!);
    }

    const dir = tempDir();
    const page = path.join(dir, 'quality.html');
    const png = await writeQualityReport(results.slice(0, 2), page, path.join(dir, 'quality.png'));
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('NASA-HTTP 2 July 1995, vms');
    expect(html).toContain('supply: HPA on a KEDA metric (no behavior)');
    // The budget's trade-off above the charts: one panel, the first week's VMs (pods have no budget rows).
    expect(html.match(/<svg class="trade-off"/g)).toHaveLength(1);
    expect(html.indexOf("The budget's trade-off")).toBeLessThan(html.indexOf('<div id="charts">'));
    // The other budgets and the warm buffer are in the summaries, not over the default's supply on the chart.
    expect(html).toContain('Drover, headroom.underProvisioning: 2');
    expect(html).not.toContain('supply: Drover, headroom.underProvisioning');
    expect(html).toContain('Drover, warm.max: 10');
    expect(html).not.toContain('supply: Drover, warm.max');
    expect(readdirSync(dir).sort()).toEqual(png ? ['quality.html', 'quality.png'] : ['quality.html']);
  });
});

function checkResult(r: TraceKindResult): void {
  const names = r.results.map((p) => p.policy);
  expect(names[0]).toMatch(/^Drover defaults/);
  expect(names.filter((n) => n.startsWith(r.kind === 'vms' ? 'Azure Monitor' : 'HPA'))).toHaveLength(r.kind === 'vms' ? 2 : 1);
  for (const p of r.results) {
    const s = p.scores;
    for (const v of [s.thetaU, s.tauU, s.tauO]) expect(v).toBeGreaterThanOrEqual(0);
    for (const v of [s.thetaU, s.tauU, s.tauO, s.tauU + s.tauO]) expect(v).toBeLessThanOrEqual(100 + 1e-9);
    expect(s.costPerDemand).toBeGreaterThan(0);
    expect(s.episodes.p50).toBeLessThanOrEqual(s.episodes.p95);
    expect(s.episodes.p95).toBeLessThanOrEqual(s.episodes.max);
    if (s.tauU === 0) expect(s.episodes.count).toBe(0);
    else expect(s.episodes.count).toBeGreaterThan(0);
  }
  const by = (prefix: string) => r.results.find((p) => p.policy.startsWith(prefix))!.scores;
  // The reference lines' known answers: the peak fleet and foresight never fall short, and
  // foresight, which holds no more than the coming demand, costs the least of all fleets that never do.
  expect(by('static peak').thetaU).toBe(0);
  expect(by('foresight').thetaU).toBe(0);
  expect(by('foresight').costPerDemand).toBeGreaterThanOrEqual(1);
  expect(by('foresight').costPerDemand).toBeLessThanOrEqual(by('static peak').costPerDemand);
  // Drover and the incumbents act on a day of changing load.
  for (const p of r.results.filter((x) => x.role !== 'reference')) expect(p.actions).toBeGreaterThan(0);
}
