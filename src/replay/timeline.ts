/**
 * A replay's timeline, one row whenever the load, the desired scale, the scale, the ready
 * replicas, the rule that bound the decision or the adaptive policy's forecast changed. Kept in blocks of typed arrays: a week of one-second load is hundreds of
 * thousands of rows, which as objects would dwarf the replay itself.
 */
import { BOUND_RULES, type BoundRule } from '../scaler/read/bound-rules.js';

export interface TimelineRow {
  at: number;
  load: number;
  /** Undefined while the scaler has no sample to decide on. */
  desired: number | undefined;
  scale: number;
  ready: number;
  /** The rule that bound the last decision; undefined when the load's answer stood. */
  boundBy?: BoundRule;
  /** The last decision's forecast floor and whether it was above the adaptive rule's count; absent while there was none (`forecast.mode: off`, no period known). */
  forecast?: ReplayForecast;
}

export interface ReplayForecast {
  floor: number;
  wouldRaise: boolean;
}

const COLUMNS = ['at', 'load', 'desired', 'scale', 'ready', 'boundBy', 'floor', 'wouldRaise'] as const;
type Column = (typeof COLUMNS)[number];
const WIDTH = COLUMNS.length;
const OFFSET: Record<Column, number> = { at: 0, load: 1, desired: 2, scale: 3, ready: 4, boundBy: 5, floor: 6, wouldRaise: 7 };

/** A bound rule is stored as its index in BOUND_RULES, none as NaN. */
const ruleCode = (rule: BoundRule | undefined) => (rule === undefined ? NaN : BOUND_RULES.indexOf(rule));

/** Rows per block: blocks are added, never copied, so growing costs no second copy. */
const BLOCK_ROWS = 1 << 14;

export class Timeline {
  private readonly blocks: Float64Array[] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Adds a row unless it repeats the last one; a change at the last row's instant replaces it. */
  record(at: number, load: number, desired: number | undefined, scale: number, ready: number, boundBy?: BoundRule, forecast?: ReplayForecast): void {
    const v = [load, desired ?? NaN, scale, ready, ruleCode(boundBy), forecast?.floor ?? NaN, forecast ? Number(forecast.wouldRaise) : NaN] as const;
    if (this.count > 0) {
      const i = this.count - 1;
      if (this.same(i, v)) return;
      if (this.get('at', i) === at) {
        this.set(i, at, v);
        if (i > 0 && this.same(i - 1, v)) this.count--;
        return;
      }
    }
    if (this.count === this.blocks.length * BLOCK_ROWS) this.blocks.push(new Float64Array(BLOCK_ROWS * WIDTH));
    this.set(this.count++, at, v);
  }

  /** One value of row `i`; `desired` is NaN while unknown, `boundBy` a BOUND_RULES index or NaN, `floor` and `wouldRaise` (1 or 0) NaN without a forecast. */
  get(column: Column, i: number): number {
    return this.blocks[Math.floor(i / BLOCK_ROWS)]![(i % BLOCK_ROWS) * WIDTH + OFFSET[column]]!;
  }

  row(i: number): TimelineRow {
    const desired = this.get('desired', i);
    const rule = BOUND_RULES[this.get('boundBy', i)];
    const floor = this.get('floor', i);
    const row: TimelineRow = { at: this.get('at', i), load: this.get('load', i), desired: Number.isNaN(desired) ? undefined : desired, scale: this.get('scale', i), ready: this.get('ready', i) };
    return { ...row, ...(rule === undefined ? {} : { boundBy: rule }), ...(Number.isNaN(floor) ? {} : { forecast: { floor, wouldRaise: this.get('wouldRaise', i) === 1 } }) };
  }

  *rows(): Generator<TimelineRow> {
    for (let i = 0; i < this.count; i++) yield this.row(i);
  }

  /** Whether row `i` holds these values (load, desired, scale, ready, boundBy, floor, wouldRaise); NaN equals NaN. */
  private same(i: number, values: readonly number[]): boolean {
    const block = this.blocks[Math.floor(i / BLOCK_ROWS)]!;
    const base = (i % BLOCK_ROWS) * WIDTH + 1;
    return values.every((v, c) => block[base + c] === v || (Number.isNaN(block[base + c]) && Number.isNaN(v)));
  }

  private set(i: number, at: number, values: readonly number[]): void {
    const block = this.blocks[Math.floor(i / BLOCK_ROWS)]!;
    const base = (i % BLOCK_ROWS) * WIDTH;
    block[base] = at;
    values.forEach((v, c) => (block[base + 1 + c] = v));
  }
}
