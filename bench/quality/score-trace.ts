/**
 * One trace and one kind of fleet scored: Drover's replay, the incumbents' emulations and the
 * reference lines, each from the same start (d(0) ready) over the same minutes, scored over the
 * trace's window; and the issue's goals checked against them.
 */
import { runAzureMonitor, PORTAL_RULES, TUTORIAL_RULES } from './azure-monitor.js';
import { benchConfig, runDrover, STARTUP_DELAY_MS, type DroverRunner, type FleetKind } from './drover.js';
import { runHpa, type Bounds, type EmulatedRun } from './hpa.js';
import { demandOf, score, type FleetStep, type Scores } from './metrics.js';
import { foresight, staticFleet, staticSize } from './reference.js';
import { MINUTE_MS, type QualityTrace } from './traces.js';

export const BOUNDS: Bounds = { min: 1, max: 1000 };

/**
 * `candidate`: a Drover policy scored beside the defaults (the seed's `knative` rules, the
 * forecast's floor), not judged by the goals. `budget`: the default policy at another
 * `headroom.underProvisioning` (BUDGET_ROWS), the trade-off a user moves along; `variant`: the
 * default policy on a pool with a warm buffer (WARM_ROW_MAX). Neither is judged, and both are in
 * the table but not on the chart, where their supply would lie over the default's.
 */
export type PolicyRole = 'drover' | 'candidate' | 'budget' | 'variant' | 'incumbent' | 'reference';

/** Whether the report draws a row's supply on its trace's time chart. */
export const charted = (role: PolicyRole) => role !== 'budget' && role !== 'variant';

/** The default's budget, as a target with none set gets it. */
const DEFAULT_BUDGET = benchConfig('pods', 1).targets[0]!.headroom.underProvisioning;

/**
 * The budgets scored beside the default's on the NASA weeks' VMs: half and twice it. Where an
 * incumbent leaves more unserved than the default, they show what the same policy costs at the
 * incumbent's θU rather than at its own budget.
 */
export const BUDGET_ROWS = [DEFAULT_BUDGET / 2, DEFAULT_BUDGET * 2] as const;

/**
 * The warm buffer scored on the NASA weeks' VMs (the issue's own row): fewer VMs than a day's rise
 * needs (the weeks peak at 27–40), so a rise starts parked VMs and creates the rest. The row is there to show the policy
 * keeping its budget with a buffer: the contract bills a deallocated VM nothing, but its disks are
 * not free, so what the row saves is an upper bound.
 */
export const WARM_ROW_MAX = 10;

export const budgetPolicy = (underProvisioning: number) => `Drover, headroom.underProvisioning: ${underProvisioning}`;

/** An incumbent, and the budgets of the default policy's rows that left no more unserved at no more cost (θU and cost ÷ demand both no higher). */
export interface TradeOff {
  incumbent: string;
  beatenAt: number[];
}

/** The default policy's rows (the default and the budget rows), lowest budget first; none when the trace has no budget rows. */
export function budgetPoints(results: readonly PolicyResult[]): PolicyResult[] {
  if (!results.some((r) => r.role === 'budget')) return [];
  return results.filter((r) => r.budget !== undefined).sort((a, b) => a.budget! - b.budget!);
}

/** Per incumbent, the scored budgets that beat it on both axes; none when the trace has no budget rows. */
export function tradeOffs(results: readonly PolicyResult[]): TradeOff[] {
  const points = budgetPoints(results);
  if (points.length === 0) return [];
  return results
    .filter((r) => r.role === 'incumbent')
    .map((inc) => ({ incumbent: inc.policy, beatenAt: points.filter((p) => p.scores.thetaU <= inc.scores.thetaU + 1e-9 && p.scores.costPerDemand <= inc.scores.costPerDemand + 1e-9).map((p) => p.budget!) }));
}

export interface PolicyResult {
  policy: string;
  role: PolicyRole;
  scores: Scores;
  /** Actions in the scored window; undefined for a reference line that takes none (foresight). */
  actions: number | undefined;
  steps: FleetStep[];
  /** The default policy's rows (`drover`, `budget`): their `headroom.underProvisioning`. */
  budget?: number;
}

export interface GoalCheck {
  label: string;
  value: number;
  /** At most this. */
  goal: number;
  met: boolean;
}

export interface TraceKindResult {
  trace: QualityTrace;
  kind: FleetKind;
  /** d(t) over the whole replay, warm-up included. */
  demand: number[];
  results: PolicyResult[];
  goals: GoalCheck[];
}

interface Run {
  policy: string;
  role: PolicyRole;
  /** The default policy's rows (`drover`, `budget`): their `headroom.underProvisioning`. */
  budget?: number;
  run: EmulatedRun | Promise<EmulatedRun>;
  noActions?: true;
}

function runs(trace: QualityTrace, kind: FleetKind, demand: number[], drover: DroverRunner): Run[] {
  const { load, startMs, targetPerReplica: tpr } = trace;
  const initial = Math.max(BOUNDS.min, demand[0]!);
  const delay = STARTUP_DELAY_MS[kind];
  const scored = demand.slice(trace.scoredFrom, trace.scoredTo);
  const peak = staticSize(scored, 1);
  const p95 = staticSize(scored, 0.95);
  const job = { kind, load, startMs, targetPerReplica: tpr, initial };
  const incumbents: Run[] =
    kind === 'vms'
      ? [TUTORIAL_RULES, PORTAL_RULES].map((rules) => ({ policy: `Azure Monitor, ${rules.name} rules (+${rules.out} above 70 %, −1 below ${rules.in} %)`, role: 'incumbent', run: runAzureMonitor(load, startMs, tpr, initial, delay, rules, BOUNDS) }))
      : [{ policy: 'HPA on a KEDA metric (no behavior)', role: 'incumbent', run: runHpa(load, startMs, tpr, initial, delay, BOUNDS) }];
  const nasaVms = trace.goals === 'nasa' && kind === 'vms';
  const budgets: Run[] = nasaVms
    ? BUDGET_ROWS.map((underProvisioning) => ({ policy: budgetPolicy(underProvisioning), role: 'budget', budget: underProvisioning, run: drover({ ...job, candidate: { headroom: { underProvisioning } } }) }))
    : [];
  const warm: Run[] = nasaVms ? [{ policy: `Drover, warm.max: ${WARM_ROW_MAX}`, role: 'variant', run: drover({ ...job, candidate: { warm: { max: WARM_ROW_MAX } } }) }] : [];
  return [
    { policy: `Drover defaults (${kind === 'vms' ? 'Pool target' : 'Deployment'})`, role: 'drover', budget: DEFAULT_BUDGET, run: drover(job) },
    { policy: 'Drover, policy: knative (the seed’s rules)', role: 'candidate', run: drover({ ...job, candidate: { policy: 'knative' } }) },
    { policy: 'Drover, forecast: floor', role: 'candidate', run: drover({ ...job, candidate: { forecast: { mode: 'floor' } } }) },
    ...warm,
    ...budgets,
    ...incumbents,
    { policy: `static peak fleet (${peak})`, role: 'reference', run: { steps: staticFleet(peak, startMs), actionTimes: [] } },
    { policy: `static p95 fleet (${p95})`, role: 'reference', run: { steps: staticFleet(p95, startMs), actionTimes: [] } },
    { policy: `foresight (knows the next ${delay / 1000} s)`, role: 'reference', run: { steps: foresight(demand, startMs, delay), actionTimes: [] }, noActions: true },
  ];
}

/** Drover's replays go to `drover` at once (a pool of worker threads may run them side by side); the emulations run here. */
export async function scoreTraceKind(trace: QualityTrace, kind: FleetKind, drover: DroverRunner = runDrover): Promise<TraceKindResult> {
  const demand = demandOf(trace.load, trace.targetPerReplica);
  const scored = demand.slice(trace.scoredFrom, trace.scoredTo);
  const fromMs = trace.startMs + trace.scoredFrom * MINUTE_MS;
  const toMs = trace.startMs + trace.scoredTo * MINUTE_MS;
  const planned = runs(trace, kind, demand, drover);
  // All awaited together: one replay failing must not leave the others' failures unheard.
  const done = await Promise.all(
    planned.map(async (r) => {
      try {
        return await r.run;
      } catch (error) {
        throw failedRun(trace, kind, r.policy, error);
      }
    }),
  );
  const results = planned.map((r, i): PolicyResult => {
    const run = done[i]!;
    const actions = r.noActions ? undefined : run.actionTimes.filter((t) => t >= fromMs && t < toMs).length;
    return { policy: r.policy, role: r.role, scores: score(scored, fromMs, run.steps), actions, steps: run.steps, ...(r.budget === undefined ? {} : { budget: r.budget }) };
  });
  return { trace, kind, demand, results, goals: goalsFor(trace, kind, results) };
}

/** A run's failure, naming the trace, the kind and the policy it was for. */
function failedRun(trace: QualityTrace, kind: FleetKind, policy: string, error: unknown): Error {
  return new Error(`${trace.name} ${kind} · ${policy}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

const check = (label: string, value: number, goal: number): GoalCheck => ({ label, value, goal, met: value <= goal + 1e-9 });

/**
 * The goals. NASA: θU no higher than the better incumbent's, cost no higher than the
 * cheaper one's, for VMs no more actions than the busier Azure Monitor rule set; the moonshot
 * θU ≤ 1 % at cost ≤ 1.1 × foresight's. LLM: θU and cost no higher than those of the incumbent
 * with the lowest θU. Other traces: none (scored, not judged).
 */
export function goalsFor(trace: QualityTrace, kind: FleetKind, results: readonly PolicyResult[]): GoalCheck[] {
  const drover = results.find((r) => r.role === 'drover')!;
  const incumbents = results.filter((r) => r.role === 'incumbent');
  const foresightCost = results.find((r) => r.policy.startsWith('foresight'))!.scores.costPerDemand;
  const d = drover.scores;
  if (trace.goals === 'llm') {
    const best = [...incumbents].sort((a, b) => a.scores.thetaU - b.scores.thetaU)[0]!;
    const who = `the lowest-θU incumbent's (${best.policy.replace(/ \(.*\)$/, '')})`;
    return [check(`θU % ≤ ${who}`, d.thetaU, best.scores.thetaU), check(`cost ÷ demand ≤ ${who}`, d.costPerDemand, best.scores.costPerDemand)];
  }
  if (trace.goals !== 'nasa') return [];
  const [better, cheaper] = kind === 'vms' ? ["the better Azure Monitor rules'", "the cheaper Azure Monitor rules'"] : ["HPA's", "HPA's"];
  const goals = [
    check(`θU % ≤ ${better}`, d.thetaU, Math.min(...incumbents.map((r) => r.scores.thetaU))),
    check(`cost ÷ demand ≤ ${cheaper}`, d.costPerDemand, Math.min(...incumbents.map((r) => r.scores.costPerDemand))),
  ];
  if (kind === 'vms') goals.push(check("actions ≤ the busier Azure Monitor rules'", drover.actions!, Math.max(...incumbents.map((r) => r.actions!))));
  goals.push(check('moonshot: θU % ≤ 1', d.thetaU, 1), check("moonshot: cost ÷ demand ≤ 1.1 × foresight's", d.costPerDemand, 1.1 * foresightCost));
  return goals;
}
