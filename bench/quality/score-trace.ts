/**
 * One trace and one kind of fleet scored: Drover's replay, the incumbents' emulations and the
 * reference lines, each from the same start (d(0) ready) over the same minutes, scored over the
 * trace's window; and the issue's goals checked against them.
 */
import { runAzureMonitor, PORTAL_RULES, TUTORIAL_RULES } from './azure-monitor.js';
import { runDrover, STARTUP_DELAY_MS, type DroverRunner, type FleetKind } from './drover.js';
import { runHpa, type Bounds, type EmulatedRun } from './hpa.js';
import { demandOf, score, type FleetStep, type Scores } from './metrics.js';
import { foresight, staticFleet, staticSize } from './reference.js';
import { MINUTE_MS, type QualityTrace } from './traces.js';

export const BOUNDS: Bounds = { min: 1, max: 1000 };

/** `candidate`: a Drover policy scored beside the defaults (the seed's `knative` rules, the forecast's floor), not judged by the goals. */
export type PolicyRole = 'drover' | 'candidate' | 'incumbent' | 'reference';

export interface PolicyResult {
  policy: string;
  role: PolicyRole;
  scores: Scores;
  /** Actions in the scored window; undefined for a reference line that takes none (foresight). */
  actions: number | undefined;
  steps: FleetStep[];
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
  return [
    { policy: `Drover defaults (${kind === 'vms' ? 'Pool target' : 'Deployment'})`, role: 'drover', run: drover(job) },
    { policy: 'Drover, policy: knative (the seed’s rules)', role: 'candidate', run: drover({ ...job, candidate: { policy: 'knative' } }) },
    { policy: 'Drover, forecast: floor', role: 'candidate', run: drover({ ...job, candidate: { forecast: { mode: 'floor' } } }) },
    ...incumbents,
    { policy: `static peak fleet (${peak})`, role: 'reference', run: { steps: staticFleet(peak, startMs), actionTimes: [] } },
    { policy: `static p95 fleet (${p95})`, role: 'reference', run: { steps: staticFleet(p95, startMs), actionTimes: [] } },
    { policy: `foresight (knows the next ${delay / 1000} s)`, role: 'reference', run: { steps: foresight(demand, startMs, delay), actionTimes: [] }, noActions: true },
  ];
}

/** Drover's three replays go to `drover` at once (a pool of worker threads may run them side by side); the emulations run here. */
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
    return { policy: r.policy, role: r.role, scores: score(scored, fromMs, run.steps), actions: r.noActions ? undefined : run.actionTimes.filter((t) => t >= fromMs && t < toMs).length, steps: run.steps };
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
