/** The bench's printed table (per trace and kind, each goal PASS or FAIL, the budgets that beat each incumbent on both axes) and its figures for docs/benchmarks.md. */
import type { Figure } from '../index.js';
import { formatValue } from '../index.js';
import { tradeOffs, type TraceKindResult } from './score-trace.js';

const KIND_TITLE = { vms: 'VMs (ready 180 s after a raise, 40 s after a start)', pods: 'pods (ready 30 s after a raise)' } as const;

const pct = (v: number) => v.toFixed(2);
const minutes = (s: number) => (s / 60).toFixed(1);

export function formatTable(r: TraceKindResult): string {
  const header = ['policy', 'θU %', 'θO %', 'τU %', 'τO %', 'cost ÷ demand', 'episodes', 'p50 / p95 / max min', 'actions'];
  const rows = r.results.map((p) => {
    const s = p.scores;
    const e = s.episodes;
    return [p.policy, pct(s.thetaU), pct(s.thetaO), pct(s.tauU), pct(s.tauO), s.costPerDemand.toFixed(2), String(e.count), `${minutes(e.p50)} / ${minutes(e.p95)} / ${minutes(e.max)}`, p.actions === undefined ? '—' : String(p.actions)];
  });
  const lines = [`${r.trace.title}, ${KIND_TITLE[r.kind]}; targetPerReplica ${formatValue(r.trace.targetPerReplica)}`, `| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((c) => `| ${c.join(' | ')} |`)];
  for (const g of r.goals) lines.push(`  ${g.met ? 'PASS' : 'FAIL'}  Drover ${g.label}: ${formatValue(g.value)} against ${formatValue(g.goal)}`);
  for (const t of tradeOffs(r.results)) lines.push(`  budget  ${t.incumbent}: ${t.beatenAt.length > 0 ? `beaten on θU and cost at underProvisioning ${t.beatenAt.join(', ')}` : 'beaten on both at no budget scored'}`);
  return lines.join('\n');
}

/** Separates a quality figure's label into trace and kind, policy (or "goal"), and measure. */
const SEP = ' · ';

/** θU, τU, cost ÷ demand and actions of every policy, and the goals on Drover's: labels `trace kind · policy · measure`. */
export function qualityFigures(r: TraceKindResult): Figure[] {
  const prefix = `${r.trace.name} ${r.kind}`;
  const figures: Figure[] = [];
  for (const p of r.results) {
    const at = `${prefix}${SEP}${p.policy}${SEP}`;
    figures.push({ label: `${at}θU`, value: round(p.scores.thetaU), unit: '%' }, { label: `${at}τU`, value: round(p.scores.tauU), unit: '%' }, { label: `${at}cost ÷ demand`, value: round(p.scores.costPerDemand), unit: '' });
    if (p.actions !== undefined) figures.push({ label: `${at}actions`, value: p.actions, unit: 'actions' });
  }
  for (const g of r.goals) figures.push({ label: `${prefix}${SEP}goal${SEP}Drover ${g.label}`, value: round(g.value), unit: '', goal: round(g.goal) });
  return figures;
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** The quality figures of a run as docs/benchmarks.md shows them: a table per trace and kind, its goals below it. */
export function qualityTables(figures: readonly Figure[]): string {
  const groups = new Map<string, Map<string, Map<string, Figure>>>();
  for (const f of figures) {
    const [group, policy, measure] = f.label.split(SEP);
    if (group === undefined || policy === undefined || measure === undefined) continue;
    const policies = groups.get(group) ?? groups.set(group, new Map()).get(group)!;
    const measures = policies.get(policy) ?? policies.set(policy, new Map()).get(policy)!;
    measures.set(measure, f);
  }
  const out: string[] = [];
  for (const [group, policies] of groups) {
    out.push(`**${group}**`, '', '| policy | θU % | τU % | cost ÷ demand | actions |', '| --- | --- | --- | --- | --- |');
    const cell = (f: Figure | undefined) => (f === undefined ? '—' : formatValue(f.value));
    for (const [policy, m] of policies) if (policy !== 'goal') out.push(`| ${policy} | ${cell(m.get('θU'))} | ${cell(m.get('τU'))} | ${cell(m.get('cost ÷ demand'))} | ${cell(m.get('actions'))} |`);
    const goals = [...(policies.get('goal')?.values() ?? [])];
    if (goals.length > 0) out.push('', ...goals.map((g) => `- ${g.value <= g.goal! + 1e-9 ? 'PASS' : 'FAIL'}: ${g.label.split(SEP)[2]}: ${formatValue(g.value)} against ${formatValue(g.goal!)}`));
    out.push('');
  }
  return out.join('\n').trimEnd();
}
