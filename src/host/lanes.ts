/**
 * Fair order for the local host's queue worker: received messages wait in one lane per object
 * (the reconcile queue's `target/web`), and the next to run is taken from the lanes in turn, so
 * a flood for one object runs beside another object's message instead of ahead of it. A lane
 * runs at most `perLane` at once; what runs overall is the worker's to bound. Plain data, no I/O.
 */
export class Lanes<T> {
  private readonly waiting = new Map<string, T[]>();
  private readonly running = new Map<string, number>();
  /** Lanes with waiting items, in the order they get their next turn. */
  private readonly turns: string[] = [];
  private count = 0;

  constructor(private readonly perLane: number) {}

  /** Items waiting, all lanes together. */
  get size(): number {
    return this.count;
  }

  add(lane: string, item: T): void {
    this.count++;
    const queue = this.waiting.get(lane);
    if (queue) return void queue.push(item);
    this.waiting.set(lane, [item]);
    this.turns.push(lane);
  }

  /** The next item to run, from the first lane in turn with room; it then goes to the back. */
  next(): { lane: string; item: T } | undefined {
    for (let i = 0; i < this.turns.length; i++) {
      const lane = this.turns[i]!;
      if ((this.running.get(lane) ?? 0) >= this.perLane) continue;
      const queue = this.waiting.get(lane)!;
      const item = queue.shift()!;
      this.count--;
      this.turns.splice(i, 1);
      if (queue.length > 0) this.turns.push(lane);
      else this.waiting.delete(lane);
      this.running.set(lane, (this.running.get(lane) ?? 0) + 1);
      return { lane, item };
    }
    return undefined;
  }

  /** An item of `lane` that `next` gave out has finished. */
  done(lane: string): void {
    const n = (this.running.get(lane) ?? 1) - 1;
    if (n > 0) this.running.set(lane, n);
    else this.running.delete(lane);
  }

  /** Takes every waiting item out (the worker is stopping). */
  drain(): T[] {
    const all = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.turns.length = 0;
    this.count = 0;
    return all;
  }
}
