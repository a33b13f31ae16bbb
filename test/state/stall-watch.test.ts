// The stall watch (src/state/stall-watch.ts) on an injected clock and timer: calls begin and end
// at given seconds, and the lines it says, with the second each is said at, are compared whole.
import { describe, expect, it } from 'vitest';
import { STORAGE_STALL_REMIND_MS, STORAGE_STALL_WARN_MS, stallWatch, type StallTimers } from '../../src/state/stall-watch.js';

/** One call: on `resource` (table a by default), from `from` to `to` seconds; `answered` false: it failed unanswered. `to` undefined: still waiting at the end. */
type Call = { resource?: string; from: number; to?: number; answered?: boolean };

/** Plays the calls on a clock that jumps from one event (a call's start or end, a timer) to the next, up to `until` seconds. */
function play(calls: Call[], until: number, options: { slowCallMs?: number; thresholdMs?: number } = {}) {
  let clock = 0;
  const pending: { at: number; run: () => void; id: number }[] = [];
  let ids = 0;
  const timers: StallTimers = {
    set: (run, ms) => {
      const id = ids++;
      pending.push({ at: clock + ms, run, id });
      return id;
    },
    clear: (id) => {
      const at = pending.findIndex((p) => p.id === id);
      if (at >= 0) pending.splice(at, 1);
    },
  };
  const watch = stallWatch({ slowCallMs: options.slowCallMs ?? 5_000, thresholdMs: options.thresholdMs, now: () => clock, timers });
  const said: string[] = [];
  watch.onStalled((line, event) => said.push(`${(clock / 1000).toFixed(1)} ${event}: ${line}`));
  const events = calls.flatMap((c, i) => [
    { at: c.from * 1000, order: 1, act: () => (ends[i] = watch.begin(c.resource ?? 'table a')) },
    ...(c.to === undefined ? [] : [{ at: c.to * 1000, order: 0, act: () => ends[i]!({ answered: c.answered ?? true, ...(c.answered === false ? { error: 'timed out, see https://x/y?sig=SECRET' } : {}) }) }]),
  ]);
  const ends: ((o: { answered: boolean; error?: string }) => void)[] = [];
  events.sort((a, b) => a.at - b.at || a.order - b.order);
  const next = () => {
    pending.sort((a, b) => a.at - b.at);
    const timer = pending[0];
    const event = events[0];
    if (timer && timer.at <= until * 1000 && (!event || timer.at < event.at)) {
      pending.shift();
      clock = timer.at;
      timer.run();
      return true;
    }
    if (!event) return false;
    events.shift();
    clock = event.at;
    event.act();
    return true;
  };
  while (next());
  return said;
}

/** A call that hangs until its tries time out (15 s), then another, from `from` to `to`. */
const hanging = (from: number, to: number): Call[] => {
  const calls: Call[] = [];
  for (let t = from; t < to; t += 15) calls.push({ from: t, to: Math.min(t + 15, to), answered: t + 15 <= to ? false : true });
  return calls;
};

describe('storage stall watch (warning after 10 s, a reminder a minute)', () => {
  it('says a 20 s stall by its 10th second while the calls still hang, and its length when storage answers again', () => {
    // Every call hangs from 0 s; the one begun at 15 s is answered at 20 s, and a prompt one follows.
    const said = play([...hanging(0, 20), { from: 21, to: 21.05 }], 30);
    expect(said).toEqual([
      '10.0 stalled: storage: calls to table a stalled for 10.0 s: 1 call waiting for an answer',
      '21.1 answers again: storage: table a answers again after a stall of 21.1 s',
    ]);
    expect(STORAGE_STALL_WARN_MS).toBe(10_000);
  });

  it.each([
    { name: 'one slow call under 10 s says nothing', calls: [{ from: 0, to: 9 }], until: 60, lines: [] },
    { name: 'calls answered promptly say nothing, however many', calls: Array.from({ length: 100 }, (_, i) => ({ from: i, to: i + 4 })), until: 200, lines: [] },
    {
      name: 'a stall of three minutes is said once, then reminded once a minute, then ended',
      calls: [...hanging(0, 180), { from: 181, to: 181.1 }],
      until: 300,
      lines: [
        '10.0 stalled: storage: calls to table a stalled for 10.0 s: 1 call waiting for an answer',
        '70.0 still stalled: storage: calls to table a still stalled after 70.0 s: 1 call waiting for an answer, 4 calls ended unanswered or slow; the last one failed: timed out, see https://x/y?[redacted]',
        '130.0 still stalled: storage: calls to table a still stalled after 130.0 s: 1 call waiting for an answer, 8 calls ended unanswered or slow; the last one failed: timed out, see https://x/y?[redacted]',
        '181.1 answers again: storage: table a answers again after a stall of 181.1 s',
      ],
    },
    {
      name: 'fast failures one after another count from the first',
      calls: Array.from({ length: 8 }, (_, i) => ({ from: i * 2, to: i * 2 + 0.5, answered: false })),
      until: 60,
      lines: ['10.0 stalled: storage: calls to table a stalled for 10.0 s: 1 call waiting for an answer, 5 calls ended unanswered or slow; the last one failed: timed out, see https://x/y?[redacted]'],
    },
    {
      name: 'a prompt answer in between ends the run, and a short stall is not said at all',
      calls: [{ from: 0, to: 8, answered: false }, { from: 8, to: 8.1 }, { from: 9, to: 17, answered: false }],
      until: 60,
      lines: [],
    },
    {
      name: 'stalls are per table or queue',
      calls: [{ from: 0, to: 8, answered: false }, { resource: 'queue q', from: 4, to: 12, answered: false }, { from: 8, to: 8.1 }],
      until: 60,
      lines: [],
    },
    {
      name: 'a queue that hangs is named, while a table answers',
      calls: [{ resource: 'queue drover-reconcile', from: 0 }, { from: 1, to: 1.1 }, { from: 5, to: 5.1 }],
      until: 12,
      lines: ['10.0 stalled: storage: calls to queue drover-reconcile stalled for 10.0 s: 1 call waiting for an answer'],
    },
  ])('$name', ({ calls, until, lines }) => {
    expect(play(calls, until)).toEqual(lines);
    expect(STORAGE_STALL_REMIND_MS).toBe(60_000);
  });
});
