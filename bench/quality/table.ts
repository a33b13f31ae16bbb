/** The bench's printed table (per trace and kind, each goal PASS or FAIL) and its figures for docs/benchmarks.md. */
import type { Figure } from '../index.js';
import { formatValue } from '../index.js';
import type { TraceKindResult } from './score-trace.js';

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
  return lines.join('\n');
}

/** θU, cost ÷ demand and actions of every policy, the goals on Drover's. */
export function qualityFigures(r: TraceKindResult): Figure[] {
  const prefix = `${r.trace.name} ${r.kind}`;
  const figures: Figure[] = [];
  for (const p of r.results) {
    const name = p.policy.replace(/ \(.*\)$/, '');
    figures.push({ label: `${prefix} ${name}: θU`, value: round(p.scores.thetaU), unit: '%' }, { label: `${prefix} ${name}: cost ÷ demand`, value: round(p.scores.costPerDemand), unit: '' });
    if (p.actions !== undefined && p.role !== 'reference') figures.push({ label: `${prefix} ${name}: actions`, value: p.actions, unit: 'actions' });
  }
  for (const g of r.goals) figures.push({ label: `${prefix} Drover ${g.label}`, value: round(g.value), unit: '', goal: round(g.goal) });
  return figures;
}

const round = (v: number) => Math.round(v * 1000) / 1000;
