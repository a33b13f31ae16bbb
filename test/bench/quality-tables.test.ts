/**
 * The quality bench's emulations and metrics against hand-computed rows: HPA on a KEDA metric
 * (no behavior), Azure Monitor autoscale's rules (cooldown, flapping), the SPEC RG metrics over a
 * 10-minute trace, and the reference lines.
 */
import { describe, expect, it } from 'vitest';
import { cpuPercent, evaluateAutoscale, PORTAL_RULES, runAzureMonitor, TUTORIAL_RULES, type AutoscaleDecision, type AutoscaleInput, type AutoscaleRules } from '../../bench/quality/azure-monitor.js';
import { hpaSync, runHpa, type HpaState } from '../../bench/quality/hpa.js';
import { demandOf, score, type FleetStep } from '../../bench/quality/metrics.js';
import { foresight, staticSize } from '../../bench/quality/reference.js';
import { budgetPolicy, goalsFor, tradeOffs, type PolicyResult, type TraceKindResult } from '../../bench/quality/score-trace.js';
import { formatTable, qualityFigures, qualityTables } from '../../bench/quality/table.js';
import { tradeOffSection, tradeOffSvg } from '../../bench/quality/trade-off.js';
import { linearPercentile, llmMinutes, perMinuteSums, jobsInProgressMinutes } from '../../bench/quality/traces.js';
import { goalsTable, mergeRuns } from '../../bench/doc-tables.js';
import type { BenchRun } from '../../bench/index.js';

const S = 1_000;
const MIN = 60_000;
const BOUNDS = { min: 1, max: 1000 };

describe('HPA v2 on a KEDA external metric, without behavior (targetPerReplica 10)', () => {
  const now = 1_000 * S;
  it.each<{ name: string; state: HpaState; metric: number; want: number }>([
    { name: 'a rise is capped at twice the current count', state: { replicas: 4, recommendations: [] }, metric: 100, want: 8 },
    { name: 'a rise from 1 is capped at 4, not 2', state: { replicas: 1, recommendations: [] }, metric: 100, want: 4 },
    { name: 'a ratio within the 10 % tolerance keeps the current count', state: { replicas: 10, recommendations: [] }, metric: 109, want: 10 },
    { name: 'a ratio just past the tolerance scales to ⌈load ÷ target⌉', state: { replicas: 10, recommendations: [] }, metric: 111, want: 12 },
    { name: 'a fall follows the highest recommendation of the last 300 s', state: { replicas: 8, recommendations: [{ at: now - 299 * S, replicas: 8 }, { at: now - 100 * S, replicas: 5 }] }, metric: 30, want: 8 },
    { name: 'a recommendation 300 s old no longer holds', state: { replicas: 8, recommendations: [{ at: now - 300 * S, replicas: 8 }, { at: now - 100 * S, replicas: 5 }] }, metric: 30, want: 5 },
    { name: 'the first sync seeds the history with the current count, so it does not fall at once', state: { replicas: 5, recommendations: undefined }, metric: 20, want: 5 },
    { name: 'no load leaves minReplicas', state: { replicas: 3, recommendations: [] }, metric: 0, want: 1 },
  ])('$name', ({ state, metric, want }) => {
    expect(hpaSync(state, metric, 10, now, BOUNDS).replicas).toBe(want);
  });

  it('keeps the raw recommendation with its time, dropping those older than 300 s', () => {
    const next = hpaSync({ replicas: 8, recommendations: [{ at: now - 300 * S, replicas: 9 }, { at: now - 10 * S, replicas: 8 }] }, 30, 10, now, BOUNDS);
    expect(next.recommendations).toEqual([{ at: now - 10 * S, replicas: 8 }, { at: now, replicas: 3 }]);
  });

  it('over a trace: KEDA reads every 30 s, the HPA syncs every 15 s, pods ready 30 s after a raise', () => {
    // 10 → 100 at minute 1: 1 pod, then syncs at 60 s (→ 4, cap), 75 s (→ 8), 90 s (→ 10).
    const run = runHpa([10, 100, 100], 0, 10, 1, 30 * S, BOUNDS);
    expect(run.actionTimes).toEqual([60 * S, 75 * S, 90 * S]);
    expect(run.steps).toEqual([
      { at: 0, supply: 1, billed: 1 },
      { at: 60 * S, supply: 1, billed: 4 },
      { at: 75 * S, supply: 1, billed: 8 },
      { at: 90 * S, supply: 4, billed: 10 },
      { at: 105 * S, supply: 8, billed: 10 },
      { at: 120 * S, supply: 10, billed: 10 },
    ]);
  });
});

describe('Azure Monitor autoscale', () => {
  const input = (over: Partial<AutoscaleInput>): AutoscaleInput => ({ count: 3, average: 50, now: 10 * MIN, cooldownUntil: -Infinity, ...over });
  it.each<{ name: string; input: AutoscaleInput; rules: AutoscaleRules; want: AutoscaleDecision }>([
    { name: 'above 70 % the tutorial rules add 3 VMs', input: input({ average: 71 }), rules: TUTORIAL_RULES, want: { kind: 'out', to: 6 } },
    { name: 'above 70 % the portal rules add 1 VM', input: input({ average: 71 }), rules: PORTAL_RULES, want: { kind: 'out', to: 4 } },
    { name: 'at exactly 70 % nothing is added', input: input({ average: 70 }), rules: TUTORIAL_RULES, want: { kind: 'hold', why: 'between' } },
    { name: 'within the cooldown of the last action (4 minutes ago, at 90 %) nothing happens', input: input({ average: 90, now: 14 * MIN, cooldownUntil: 15 * MIN }), rules: TUTORIAL_RULES, want: { kind: 'hold', why: 'cooldown' } },
    { name: 'when the cooldown ends (5 minutes after the last action) the rule fires again', input: input({ average: 90, now: 15 * MIN, cooldownUntil: 15 * MIN }), rules: TUTORIAL_RULES, want: { kind: 'out', to: 6 } },
    { name: '3 VMs at 60 % with in 65: the projection 90 % exceeds 70 %, so no scale-in (flapping)', input: input({ average: 60 }), rules: { name: 'hand', out: 1, in: 65 }, want: { kind: 'hold', why: 'flapping' } },
    { name: '3 VMs at 20 % with in 30: the projection 30 % is under 70 %, so one VM goes', input: input({ average: 20 }), rules: TUTORIAL_RULES, want: { kind: 'in', to: 2 } },
    { name: '3 VMs at 25 % with in 20: between the thresholds', input: input({ average: 25 }), rules: PORTAL_RULES, want: { kind: 'hold', why: 'between' } },
    { name: 'at the minimum of 1 VM nothing is removed', input: input({ count: 1, average: 5 }), rules: TUTORIAL_RULES, want: { kind: 'hold', why: 'minimum' } },
    { name: 'the maximum caps a scale-out', input: input({ count: 999, average: 90 }), rules: TUTORIAL_RULES, want: { kind: 'out', to: 1000 } },
    { name: 'before five buckets exist it waits', input: input({ average: undefined }), rules: TUTORIAL_RULES, want: { kind: 'hold', why: 'no data' } },
  ])('$name', ({ input, rules, want }) => {
    expect(evaluateAutoscale(input, rules, BOUNDS)).toEqual(want);
  });

  it.each([
    { name: 'targetPerReplica per ready VM is 70 %', load: 20, ready: 2, want: 70 },
    { name: 'twice that is capped at 100 %', load: 40, ready: 2, want: 100 },
    { name: 'no ready VM under load is 100 %', load: 5, ready: 0, want: 100 },
  ])('CPU: $name', ({ load, ready, want }) => {
    expect(cpuPercent(load, ready, 10)).toBe(want);
  });

  it('over a trace: the first evaluation with 5 buckets 3 minutes old, then a 5-minute cooldown', () => {
    // 1 VM at 100 % from the start: buckets 0–4 are read at the end of minute 7 (8 min): +3,
    // ready 3 minutes later; the cooldown holds until 13 min, when buckets 5–9 (still 100 %) add 3 more.
    const run = runAzureMonitor(Array(14).fill(20), 0, 10, 1, 3 * MIN, TUTORIAL_RULES, BOUNDS);
    expect(run.actionTimes).toEqual([8 * MIN, 13 * MIN]);
    expect(run.steps).toEqual([
      { at: 0, supply: 1, billed: 1 },
      { at: 8 * MIN, supply: 1, billed: 4 },
      { at: 11 * MIN, supply: 4, billed: 4 },
      { at: 13 * MIN, supply: 4, billed: 7 },
    ]);
  });
});

describe('the metrics over a hand-computed 10-minute trace', () => {
  // Demand per minute, and a fleet: raised at 2 min (ready at 3), cut to 1 at 5, 2 at 6.5, 3 at 8.
  const demand = [2, 2, 4, 4, 0, 1, 2, 2, 2, 2];
  const steps: FleetStep[] = [
    { at: 0, supply: 2, billed: 2 },
    { at: 120 * S, supply: 2, billed: 4 },
    { at: 180 * S, supply: 4, billed: 4 },
    { at: 300 * S, supply: 1, billed: 1 },
    { at: 390 * S, supply: 2, billed: 2 },
    { at: 480 * S, supply: 3, billed: 3 },
  ];
  const s = score(demand, 0, steps);

  it('θU: (2 of 4 short for 60 s + 1 of 2 short for 30 s) = 30 + 15 s over 600 s → 7.5 %', () => {
    expect(s.thetaU).toBeCloseTo(7.5, 10);
  });
  it('θO: 1 over 2 for the last 120 s (60 s) over 600 s → 10 %; minute 4 (d = 0) adds nothing', () => {
    expect(s.thetaO).toBeCloseTo(10, 10);
  });
  it('τU: 60 + 30 s of 600 → 15 %; τO: 60 s (minute 4) + 120 s of 600 → 30 %', () => {
    expect(s.tauU).toBeCloseTo(15, 10);
    expect(s.tauO).toBeCloseTo(30, 10);
  });
  it('two under-provisioning episodes of 60 s and 30 s', () => {
    expect(s.episodes).toEqual({ count: 2, p50: 45, p95: 58.5, max: 60 });
  });
  it('cost ÷ demand: 1,590 billed unit-seconds over 1,260 of demand', () => {
    expect(s.costPerDemand).toBeCloseTo(1590 / 1260, 10);
  });
  it('scores only the window: a later start sees the steps in force at it', () => {
    const tail = score(demand.slice(5), 300 * S, steps);
    expect(tail.thetaU).toBeCloseTo((100 * 15) / 300, 10);
    expect(tail.episodes).toEqual({ count: 1, p50: 30, p95: 30, max: 30 });
  });
  it('demand is ⌈load ÷ targetPerReplica⌉, a quotient off by floating point counting as exact', () => {
    expect(demandOf([14.4, 14.5, 0, 7.2], 7.2)).toEqual([2, 3, 0, 1]);
  });
});

describe('the reference lines and the traces’ arithmetic', () => {
  it('foresight holds the highest demand over [t, t + delay]', () => {
    expect(foresight([1, 3, 1, 1], 0, 30 * S)).toEqual([
      { at: 0, supply: 1, billed: 1 },
      { at: 30 * S, supply: 3, billed: 3 },
      { at: 120 * S, supply: 1, billed: 1 },
    ]);
  });
  it('static fleets: the peak, and the p95 rounded up', () => {
    expect(staticSize([1, 2, 3, 4, 10], 1)).toBe(10);
    expect(staticSize([1, 2, 3, 4, 10], 0.95)).toBe(Math.ceil(4 + 0.8 * 6));
  });
  it('the linear percentile interpolates between ranks', () => {
    expect(linearPercentile([10, 0, 20], 0.99)).toBeCloseTo(19.8, 10);
  });
  it('per-minute sums of per-second counts, a last partial minute kept', () => {
    expect(perMinuteSums(Buffer.from(`${Array(60).fill('1').join(' ')} 12\n3`))).toEqual([60, 15]);
    expect(() => perMinuteSums(Buffer.from('1 -2'))).toThrow(/byte 2 is not a digit/);
  });
  it('LLM arrivals counted per minute from the first', () => {
    const csv = 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,1,1\n2023-11-16 18:18:03.9799599,1,1\n2023-11-16 18:18:03.9799600,1,1\n2023-11-16 18:20:04.0000000,1,1\n';
    expect(llmMinutes(csv)).toEqual([2, 1, 0, 1]);
  });
  it('jobs in progress averaged over each minute of the window', () => {
    const swf = '; header\n1 30 -1 60 4\n2 60 -1 0 8\n3 90 -1 120 2\n';
    // Job 1: 30–90 s; job 2 runs 0 s; job 3: 90–210 s. Minutes 0–3: 0.5, 1 (30 + 30 s), 1, 0.5.
    expect(jobsInProgressMinutes(swf, 0, 4)).toEqual([0.5, 1, 1, 0.5]);
  });
});

/** A policy's scores for the tables below: θU and cost as given, τU twice θU, nothing over. */
const scores = (thetaU: number, cost: number) => ({ thetaU, thetaO: 0, tauU: 2 * thetaU, tauO: 0, costPerDemand: cost, episodes: { count: 0, p50: 0, p95: 0, max: 0 } });

describe('the figures written into docs/benchmarks.md', () => {
  const result: TraceKindResult = {
    trace: { name: 'nasa-week', title: 'NASA', load: [], scoredFrom: 0, scoredTo: 0, startMs: 0, targetPerReplica: 7.2, goals: 'nasa' },
    kind: 'pods',
    demand: [],
    results: [
      { policy: 'Drover defaults (Deployment)', role: 'drover', scores: scores(5.4321, 1), actions: 900, steps: [] },
      { policy: 'HPA on a KEDA metric (no behavior)', role: 'incumbent', scores: scores(1.5, 1.28), actions: 160, steps: [] },
      { policy: 'foresight (knows the next 30 s)', role: 'reference', scores: scores(0, 1.06), actions: undefined, steps: [] },
    ],
    goals: [],
  };
  result.goals = goalsFor(result.trace, 'pods', result.results);

  it('the goals on a NASA week for pods: θU and cost against HPA, and the moonshot against foresight', () => {
    expect(result.goals.map((g) => [g.label, g.value, g.goal, g.met])).toEqual([
      ["θU % ≤ HPA's", 5.4321, 1.5, false],
      ["cost ÷ demand ≤ HPA's", 1, 1.28, true],
      ['moonshot: θU % ≤ 1', 5.4321, 1, false],
      ["moonshot: cost ÷ demand ≤ 1.1 × foresight's", 1, 1.1 * 1.06, true],
    ]);
  });

  it('a table per trace and kind, its goals PASS or FAIL below it; issue 24’s goals leave them out', () => {
    const figures = qualityFigures(result);
    expect(qualityTables(figures).split('\n')).toEqual([
      '**nasa-week pods**',
      '',
      '| policy | θU % | τU % | cost ÷ demand | actions |',
      '| --- | --- | --- | --- | --- |',
      '| Drover defaults (Deployment) | 5.43 | 10.9 | 1 | 900 |',
      '| HPA on a KEDA metric (no behavior) | 1.50 | 3 | 1.28 | 160 |',
      '| foresight (knows the next 30 s) | 0 | 0 | 1.06 | — |',
      '',
      "- FAIL: Drover θU % ≤ HPA's: 5.43 against 1.50",
      "- PASS: Drover cost ÷ demand ≤ HPA's: 1 against 1.28",
      '- FAIL: Drover moonshot: θU % ≤ 1: 5.43 against 1',
      "- PASS: Drover moonshot: cost ÷ demand ≤ 1.1 × foresight's: 1 against 1.17",
    ]);
    const run: BenchRun = { run: { startedAt: '2026-12-07T00:00:00.000Z', finishedAt: '2026-12-07T00:00:00.000Z', node: 'v20', cores: 2, quick: false, loadAverage: { start: 1, max: 1, end: 1 } }, results: { quality: figures } };
    expect(goalsTable(mergeRuns([run]))).toBe('| figure | measured | goal | ratio |\n| --- | --- | --- | --- |');
  });
});

describe('the budgets beside the default (NASA weeks, VMs)', () => {
  const row = (policy: string, role: PolicyResult['role'], thetaU: number, cost: number, budget?: number): PolicyResult => ({ policy, role, scores: scores(thetaU, cost), actions: 1, steps: [], ...(budget === undefined ? {} : { budget }) });
  const week = [
    row('Drover defaults (Pool target)', 'drover', 0.95, 1.5, 1),
    row(budgetPolicy(0.5), 'budget', 0.47, 1.64, 0.5),
    row(budgetPolicy(2), 'budget', 1.93, 1.36, 2),
    // Beaten by the default (less unserved, cheaper) and by twice its budget (equal θU counts).
    row('Azure Monitor, tutorial rules', 'incumbent', 1.93, 1.52),
    // Cheaper than every budget that leaves less unserved: beaten by none.
    row('Azure Monitor, portal rules', 'incumbent', 1.2, 1.4),
    row('foresight', 'reference', 0, 1.28),
  ];

  it('each incumbent with the budgets that left no more unserved at no more cost, lowest first', () => {
    expect(tradeOffs(week)).toEqual([
      { incumbent: 'Azure Monitor, tutorial rules', beatenAt: [1, 2] },
      { incumbent: 'Azure Monitor, portal rules', beatenAt: [] },
    ]);
    // A trace without the budget rows (pods, the LLM hours) says nothing of them.
    expect(tradeOffs(week.filter((r) => r.role !== 'budget'))).toEqual([]);
  });

  it('printed under the goals', () => {
    const trace = { name: 'nasa-week-3', title: 'NASA', load: [], scoredFrom: 0, scoredTo: 0, startMs: 0, targetPerReplica: 7.2, goals: 'nasa' as const };
    const lines = formatTable({ trace, kind: 'vms', demand: [], results: week, goals: [] }).split('\n');
    expect(lines.slice(3, 6).map((l) => l.split(' | ')[0])).toEqual(['| Drover defaults (Pool target)', '| Drover, headroom.underProvisioning: 0.5', '| Drover, headroom.underProvisioning: 2']);
    expect(lines.slice(-2)).toEqual(['  budget  Azure Monitor, tutorial rules: beaten on θU and cost at underProvisioning 1, 2', '  budget  Azure Monitor, portal rules: beaten on both at no budget scored']);
  });
});

describe('the trade-off panel in the report', () => {
  const budgets = [
    { label: '0.5', thetaU: 0.5, cost: 1.6 },
    { label: '1', thetaU: 1, cost: 1.5 },
    { label: '2', thetaU: 2, cost: 1.3 },
  ];
  const svg = tradeOffSvg('NASA <week>', budgets, [{ label: 'AM tutorial rules', thetaU: 2.4, cost: 1.5 }]);

  it('places each point by θU and cost: x from 0 to the whole percent above 1.15 × the highest θU, y the costs with a tenth of their span either side', () => {
    // x over [0, 3] (2.4 × 1.15 = 2.76): 52 + θU × 312 ÷ 3; y over [1.27, 1.63]: 224 − (cost − 1.27) × 182 ÷ 0.36.
    expect(svg).toContain('<polyline points="104.0,57.2 156.0,107.7 260.0,208.8"');
    expect(svg).toMatch(/<circle cx="301\.6" cy="107\.7" r="4" fill="#ff7f0e"><title>AM tutorial rules: θU 2\.40 %, cost 1\.500<\/title>/);
    // Each budget numbered beside its point, to its left right of the middle so that it stays inside the frame.
    expect(svg).toContain('<text x="110.0" y="51.2" fill="#1f77b4">0.5</text>');
    expect(svg).toContain('<text x="254.0" y="202.8" fill="#1f77b4" text-anchor="end">2</text>');
    // The incumbent named in the legend, in its colour, after Drover's entry (6 characters: 6 × 6 + 24 px on).
    expect(svg).toContain('<circle cx="116" cy="27" r="4" fill="#ff7f0e"/><text x="124" y="31">AM tutorial rules</text>');
    // A tick at each whole percent.
    expect([...svg.matchAll(/text-anchor="middle">(\d[^<]*)<\/text>/g)].map((m) => m[1])).toEqual(['0', '1', '2', '3']);
    expect(svg).toContain('>NASA &lt;week&gt;</text>');
    // Four points, each with its figures on hover; two legend markers.
    expect(svg.match(/<circle [^>]*><title>/g)).toHaveLength(4);
    expect(svg.match(/<circle [^>]*\/>/g)).toHaveLength(2);
  });

  it('one panel per trace and kind with budget rows, none without', () => {
    const trace = { name: 'nasa-week', title: 'NASA 2–8 July', load: [], scoredFrom: 0, scoredTo: 0, startMs: 0, targetPerReplica: 7.2, goals: 'nasa' as const };
    const rows: PolicyResult[] = [
      { policy: 'Drover defaults (Pool target)', role: 'drover', scores: scores(1, 1.5), actions: 1, steps: [], budget: 1 },
      { policy: budgetPolicy(2), role: 'budget', scores: scores(2, 1.3), actions: 1, steps: [], budget: 2 },
      { policy: 'Azure Monitor, tutorial rules (+3 above 70 %, −1 below 30 %)', role: 'incumbent', scores: scores(2.4, 1.5), actions: 1, steps: [] },
    ];
    const vms = { trace, kind: 'vms' as const, demand: [], results: rows, goals: [] };
    const pods = { ...vms, kind: 'pods' as const, results: rows.filter((r) => r.role !== 'budget') };
    const section = tradeOffSection([vms, pods]);
    expect(section.match(/<svg /g)).toHaveLength(1);
    expect(section).toContain('>NASA 2–8 July, vms</text>');
    expect(section).toContain('>AM tutorial rules</text>');
    expect(section).toContain('<code>headroom.underProvisioning</code> 1, 2');
    expect(tradeOffSection([pods])).toBe('');
  });
});
