/**
 * A replay's timeline, one row whenever the load, the desired scale, the scale or the ready
 * replicas changed. Kept in columns of growing typed arrays: a week of one-second load is
 * hundreds of thousands of rows, which as objects would dwarf the replay itself.
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

export class Timeline {
  private columns: Record<Column, Float64Array>;
  private count = 0;

  constructor(initialCapacity = 1_024) {
    this.columns = Object.fromEntries(COLUMNS.map((c) => [c, new Float64Array(initialCapacity)])) as Record<Column, Float64Array>;
  }

  get length(): number {
    return this.count;
  }

  /** Adds a row unless it repeats the last one; a change at the last row's instant replaces it. */
  record(at: number, load: number, desired: number | undefined, scale: number, ready: number): void {
    const d = desired ?? NaN;
    const c = this.columns;
    if (this.count > 0) {
      const i = this.count - 1;
      if (c.load[i] === load && Object.is(c.desired[i], d) && c.scale[i] === scale && c.ready[i] === ready) return;
      if (c.at[i] === at) {
        this.set(i, at, load, d, scale, ready);
        if (i > 0 && this.sameAs(i - 1, i)) this.count--;
        return;
      }
    }
    if (this.count === c.at.length) this.grow();
    this.set(this.count++, at, load, d, scale, ready);
  }

  row(i: number): TimelineRow {
    const c = this.columns;
    const desired = c.desired[i]!;
    return { at: c.at[i]!, load: c.load[i]!, desired: Number.isNaN(desired) ? undefined : desired, scale: c.scale[i]!, ready: c.ready[i]! };
  }

  *rows(): Generator<TimelineRow> {
    for (let i = 0; i < this.count; i++) yield this.row(i);
  }

  /** The column's values so far (a view, not a copy). */
  column(name: Column): Float64Array {
    return this.columns[name].subarray(0, this.count);
  }

  private sameAs(a: number, b: number): boolean {
    const c = this.columns;
    return c.load[a] === c.load[b] && Object.is(c.desired[a], c.desired[b]) && c.scale[a] === c.scale[b] && c.ready[a] === c.ready[b];
  }

  private set(i: number, at: number, load: number, desired: number, scale: number, ready: number): void {
    const c = this.columns;
    c.at[i] = at;
    c.load[i] = load;
    c.desired[i] = desired;
    c.scale[i] = scale;
    c.ready[i] = ready;
  }

  private grow(): void {
    for (const name of COLUMNS) {
      const bigger = new Float64Array(this.columns[name].length * 2);
      bigger.set(this.columns[name]);
      this.columns[name] = bigger;
    }
  }
}
