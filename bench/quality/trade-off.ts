/**
 * The budget's trade-off drawn for the report: per trace with budget rows (the NASA weeks' VMs),
 * θU (x) against cost ÷ demand (y), the default policy's budgets joined by a line, each incumbent
 * a point. A point below and left of an incumbent's beats it on both axes: the figure the tables
 * and the bench's `budget` lines state in numbers. Plain SVG, so the page and its PNG need no
 * chart library for it.
 */
import { escapeHtml } from '../../src/replay/html.js';
import { budgetPoints, type PolicyResult, type TraceKindResult } from './score-trace.js';

export interface TradeOffPoint {
  label: string;
  thetaU: number;
  cost: number;
}

const WIDTH = 380;
const HEIGHT = 264;
const MARGIN = { left: 52, right: 16, top: 42, bottom: 40 };
/** A legend entry's width per character of its label, and for its marker and gap. */
const LEGEND_CHAR = 6;
const LEGEND_GAP = 24;
const DROVER_COLOR = '#1f77b4';
const INCUMBENT_COLORS = ['#ff7f0e', '#9467bd'];
const TICKS = 4;

/** Scales a value in [lo, hi] onto [from, to] (to < from for the y axis, which grows upwards). */
const scale = (lo: number, hi: number, from: number, to: number) => (v: number) => from + ((v - lo) / (hi - lo || 1)) * (to - from);

const fixed = (v: number) => v.toFixed(1);

/**
 * The axes' ranges: θU from 0 to the whole percent above 1.15 × every point's (room for a
 * budget's number), cost around every point with a tenth of their span either side, so that no
 * point sits on a frame.
 */
function ranges(points: readonly TradeOffPoint[]) {
  const costs = points.map((p) => p.cost);
  const low = Math.min(...costs);
  const high = Math.max(...costs);
  const pad = Math.max(0.01, (high - low) * 0.1);
  return { x: [0, Math.max(1, Math.ceil(Math.max(...points.map((p) => p.thetaU)) * 1.15))] as const, y: [low - pad, high + pad] as const };
}

function axes(x: (v: number) => number, y: (v: number) => number, r: ReturnType<typeof ranges>): string {
  const parts: string[] = [`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${WIDTH - MARGIN.left - MARGIN.right}" height="${HEIGHT - MARGIN.top - MARGIN.bottom}" fill="none" stroke="#bbb"/>`];
  // A tick at each whole percent while there are few; else TICKS of them.
  const xTicks = r.x[1] <= 8 ? r.x[1] : TICKS;
  for (let i = 0; i <= xTicks; i++) {
    const tx = (r.x[1] * i) / xTicks;
    parts.push(`<text x="${fixed(x(tx))}" y="${HEIGHT - MARGIN.bottom + 14}" text-anchor="middle">${Number.isInteger(tx) ? tx : tx.toFixed(1)}</text>`);
  }
  for (let i = 0; i <= TICKS; i++) {
    const ty = r.y[0] + ((r.y[1] - r.y[0]) * i) / TICKS;
    parts.push(`<text x="${MARGIN.left - 6}" y="${fixed(y(ty) + 4)}" text-anchor="end">${ty.toFixed(2)}</text>`);
  }
  parts.push(`<text x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${HEIGHT - 6}" text-anchor="middle">θU % (demand unserved)</text>`);
  parts.push(`<text transform="translate(12 ${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle">cost ÷ demand</text>`);
  return parts.join('');
}

/** A line under the title: Drover's colour (its points numbered by budget), then each incumbent's colour and name. */
function legend(entries: readonly { label: string; color: string }[]): string {
  const items = [{ label: 'Drover', color: DROVER_COLOR }, ...entries];
  let at = MARGIN.left;
  return items
    .map(({ label, color }) => {
      const item = `<circle cx="${at + 4}" cy="27" r="4" fill="${color}"/><text x="${at + 12}" y="31">${escapeHtml(label)}</text>`;
      at += label.length * LEGEND_CHAR + LEGEND_GAP;
      return item;
    })
    .join('');
}

/** One panel: the default policy's budgets (lowest first) joined and numbered, the incumbents as points named in a legend. */
export function tradeOffSvg(title: string, budgets: readonly TradeOffPoint[], incumbents: readonly TradeOffPoint[]): string {
  const r = ranges([...budgets, ...incumbents]);
  const x = scale(r.x[0], r.x[1], MARGIN.left, WIDTH - MARGIN.right);
  const y = scale(r.y[0], r.y[1], HEIGHT - MARGIN.bottom, MARGIN.top);
  const middle = (MARGIN.left + WIDTH - MARGIN.right) / 2;
  const dot = (p: TradeOffPoint, color: string) =>
    `<circle cx="${fixed(x(p.thetaU))}" cy="${fixed(y(p.cost))}" r="4" fill="${color}"><title>${escapeHtml(`${p.label}: θU ${p.thetaU.toFixed(2)} %, cost ${p.cost.toFixed(3)}`)}</title></circle>`;
  // A budget's number beside its point, reading away from the nearer side frame.
  const budget = (p: TradeOffPoint) => {
    const right = x(p.thetaU) > middle;
    return `${dot(p, DROVER_COLOR)}<text x="${fixed(x(p.thetaU) + (right ? -6 : 6))}" y="${fixed(y(p.cost) - 6)}" fill="${DROVER_COLOR}"${right ? ' text-anchor="end"' : ''}>${escapeHtml(p.label)}</text>`;
  };
  const colorOf = (i: number) => INCUMBENT_COLORS[i % INCUMBENT_COLORS.length]!;
  const line = budgets.map((p) => `${fixed(x(p.thetaU))},${fixed(y(p.cost))}`).join(' ');
  return [
    `<svg class="trade-off" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-size="11" font-family="system-ui, sans-serif">`,
    `<text x="${MARGIN.left}" y="16" font-weight="600">${escapeHtml(title)}</text>`,
    legend(incumbents.map((p, i) => ({ label: p.label, color: colorOf(i) }))),
    axes(x, y, r),
    `<polyline points="${line}" fill="none" stroke="${DROVER_COLOR}" stroke-width="1.5"/>`,
    ...budgets.map(budget),
    // The incumbents named in the legend, not beside their points: two rule sets often lie close together.
    ...incumbents.map((p, i) => dot(p, colorOf(i))),
    '</svg>',
  ].join('');
}

/** The incumbent's name in a panel's legend: "Azure Monitor, tutorial rules (+3 …)" → "AM tutorial rules". */
const shortName = (policy: string) => policy.replace(/ \(.*\)$/, '').replace(/^Azure Monitor, /, 'AM ');

/** The report's panels, one per trace and kind that has budget rows, with a line saying how to read them; empty when none has. */
export function tradeOffSection(results: readonly TraceKindResult[]): string {
  const drawn = results.map((r) => ({ r, budgets: budgetPoints(r.results) })).filter(({ budgets }) => budgets.length > 0);
  if (drawn.length === 0) return '';
  const at = (p: PolicyResult, label: string): TradeOffPoint => ({ label, thetaU: p.scores.thetaU, cost: p.scores.costPerDemand });
  const panels = drawn.map(({ r, budgets }) =>
    tradeOffSvg(
      `${r.trace.title}, ${r.kind}`,
      budgets.map((p) => at(p, String(p.budget))),
      r.results.filter((p) => p.role === 'incumbent').map((p) => at(p, shortName(p.policy))),
    ),
  );
  const budgetList = [...new Set(drawn.flatMap(({ budgets }) => budgets.map((p) => p.budget!)))].sort((a, b) => a - b).join(', ');
  return `<section class="trade-offs"><h2>The budget's trade-off</h2><p>The default policy at <code>headroom.underProvisioning</code> ${escapeHtml(budgetList)} (joined, blue) and each incumbent: a point below and left of another leaves less unserved at less cost.</p><div style="display:flex;flex-wrap:wrap;gap:12px">${panels.join('')}</div></section>`;
}
