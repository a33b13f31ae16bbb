/**
 * The samples of one target, oldest first, in a fixed ring: adding a sample writes two numbers
 * in place (no copy, no sort, no object), pruning moves the head, and a window average walks
 * back from the newest sample only as far as the window reaches. Reconciles build one from the
 * stored row; a replay keeps one for a whole trace.
 *
 * It reads exactly as the array functions in `samples.ts` do (a property test holds them
 * together): same window bounds, same gauge rule, same retention.
 */
export interface Sample {
  /** Epoch ms. */
  at: number;
  value: number;
}

/** Enough for one sample a second over a ten-minute window; older extras are dropped first. */
export const MAX_SAMPLES = 600;

export class SampleWindow {
  private readonly ats: Float64Array;
  private readonly values: Float64Array;
  /** Index of the oldest sample. */
  private head = 0;
  private count = 0;

  constructor(readonly capacity = MAX_SAMPLES) {
    this.ats = new Float64Array(capacity);
    this.values = new Float64Array(capacity);
  }

  static from(samples: readonly Sample[], capacity = MAX_SAMPLES): SampleWindow {
    const window = new SampleWindow(capacity);
    for (const s of samples) window.insert(s.at, s.value);
    return window;
  }

  get size(): number {
    return this.count;
  }

  /** The newest sample's time, undefined when empty. */
  get newestAt(): number | undefined {
    return this.count === 0 ? undefined : this.ats[this.slot(this.count - 1)];
  }

  /** The newest sample's value, undefined when empty. */
  get newestValue(): number | undefined {
    return this.count === 0 ? undefined : this.values[this.slot(this.count - 1)];
  }

  /**
   * Adds a sample; returns whether it was added. A gauge value equal to the gauge's current one
   * is no new sample: the gauge did not move, and a reconcile message delivered twice counts once.
   */
  add(at: number, value: number, gauge: boolean): boolean {
    if (gauge && this.count > 0 && this.newestValue === value) return false;
    this.insert(at, value);
    return true;
  }

  /**
   * Keeps what a window may still read: samples newer than `keepMs` before `now`, plus the
   * newest one (which a gauge holds). The count bound is the ring's capacity.
   */
  prune(now: number, keepMs: number): void {
    while (this.count > 1 && !(this.ats[this.head]! > now - keepMs)) {
      this.head = (this.head + 1) % this.capacity;
      this.count--;
    }
  }

  /**
   * The average over (now − windowMs, now], or undefined when the window holds no sample. With
   * `holdLatest` (a gauge) an empty window reads as the newest sample at or before `now`.
   */
  average(now: number, windowMs: number, holdLatest: boolean): number | undefined {
    // Find the window's slice walking back from the newest, then sum it oldest first: the same
    // order as the array form, so the float sums (and the replicas they round to) agree.
    let end = this.count;
    while (end > 0 && this.ats[this.slot(end - 1)]! > now) end--;
    let start = end;
    while (start > 0 && this.ats[this.slot(start - 1)]! > now - windowMs) start--;
    if (start === end) return holdLatest && end > 0 ? this.values[this.slot(end - 1)] : undefined;
    let sum = 0;
    for (let i = start; i < end; i++) sum += this.values[this.slot(i)]!;
    return sum / (end - start);
  }

  toArray(): Sample[] {
    const out: Sample[] = new Array<Sample>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = { at: this.ats[this.slot(i)]!, value: this.values[this.slot(i)]! };
    return out;
  }

  private slot(i: number): number {
    return (this.head + i) % this.capacity;
  }

  /**
   * Appends in time order; a sample older than the newest (a clock that stepped back between
   * hosts) is moved into place, the only path that shifts. A full ring drops its oldest.
   */
  private insert(at: number, value: number): void {
    if (this.count === this.capacity) {
      // Full: the oldest of the lot goes, which may be the newcomer itself.
      if (at < this.ats[this.head]!) return;
      this.head = (this.head + 1) % this.capacity;
      this.count--;
    }
    let i = this.count;
    this.count++;
    // Equal times keep arrival order, as a stable sort would.
    while (i > 0 && this.ats[this.slot(i - 1)]! > at) {
      this.ats[this.slot(i)] = this.ats[this.slot(i - 1)]!;
      this.values[this.slot(i)] = this.values[this.slot(i - 1)]!;
      i--;
    }
    this.ats[this.slot(i)] = at;
    this.values[this.slot(i)] = value;
  }
}
