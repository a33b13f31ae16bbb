/**
 * A replay's timeline, one row whenever the load, the desired scale, the scale or the ready
 * replicas changed. Kept in blocks of typed arrays: a week of one-second load is hundreds of
 * thousands of rows, which as objects would dwarf the replay itself.
 */
export interface TimelineRow {
  at: number;
  load: number;
  /** Undefined while the scaler has no sample to decide on. */
  desired: number | undefined;
  scale: number;
  ready: number;
}

const COLUMNS = ['at', 'load', 'desired', 'scale', 'ready'] as const;
type Column = (typeof COLUMNS)[number];
const WIDTH = COLUMNS.length;
const OFFSET: Record<Column, number> = { at: 0, load: 1, desired: 2, scale: 3, ready: 4 };

/** Rows per block: blocks are added, never copied, so growing costs no second copy. */
const BLOCK_ROWS = 1 << 14;

export class Timeline {
  private readonly blocks: Float64Array[] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Adds a row unless it repeats the last one; a change at the last row's instant replaces it. */
  record(at: number, load: number, desired: number | undefined, scale: number, ready: number): void {
    const d = desired ?? NaN;
    if (this.count > 0) {
      const i = this.count - 1;
      if (this.same(i, load, d, scale, ready)) return;
      if (this.get('at', i) === at) {
        this.set(i, at, load, d, scale, ready);
        if (i > 0 && this.same(i - 1, load, d, scale, ready)) this.count--;
        return;
      }
    }
    if (this.count === this.blocks.length * BLOCK_ROWS) this.blocks.push(new Float64Array(BLOCK_ROWS * WIDTH));
    this.set(this.count++, at, load, d, scale, ready);
  }

  /** One value of row `i`; `desired` is NaN while unknown. */
  get(column: Column, i: number): number {
    return this.blocks[Math.floor(i / BLOCK_ROWS)]![(i % BLOCK_ROWS) * WIDTH + OFFSET[column]]!;
  }

  row(i: number): TimelineRow {
    const desired = this.get('desired', i);
    return { at: this.get('at', i), load: this.get('load', i), desired: Number.isNaN(desired) ? undefined : desired, scale: this.get('scale', i), ready: this.get('ready', i) };
  }

  *rows(): Generator<TimelineRow> {
    for (let i = 0; i < this.count; i++) yield this.row(i);
  }

  private same(i: number, load: number, desired: number, scale: number, ready: number): boolean {
    return this.get('load', i) === load && Object.is(this.get('desired', i), desired) && this.get('scale', i) === scale && this.get('ready', i) === ready;
  }

  private set(i: number, at: number, load: number, desired: number, scale: number, ready: number): void {
    const block = this.blocks[Math.floor(i / BLOCK_ROWS)]!;
    const base = (i % BLOCK_ROWS) * WIDTH;
    block[base] = at;
    block[base + 1] = load;
    block[base + 2] = desired;
    block[base + 3] = scale;
    block[base + 4] = ready;
  }
}
