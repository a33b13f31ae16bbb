import { describe, expect, it } from 'vitest';
import { STORAGE_STALL_WARN_MS, stallWatch } from '../../src/state/stall-watch.js';

type Call = { resource?: string; tookMs: number; answered?: boolean; gapMs?: number };

/** Plays calls one after another on an injected clock and returns the warning lines. */
function play(calls: Call[], slowCallMs = 5_000) {
  let clock = 0;
  const watch = stallWatch({ slowCallMs, now: () => clock });
  const lines: string[] = [];
  watch.onStalled((l) => lines.push(l));
  for (const c of calls) {
    clock += c.gapMs ?? 0;
    const started = clock;
    clock += c.tookMs;
    const answered = c.answered ?? true;
    watch.record(c.resource ?? 'table a', started, { answered, ...(answered ? {} : { error: 'timed out, see https://x/y?sig=SECRET' }) });
  }
  return lines;
}

describe('stall watch (default threshold 25 s)', () => {
  it.each([
    { name: 'one slow call under 25 s', calls: [{ tookMs: 17_000 }], warnings: 0 },
    { name: 'one call of 25 s', calls: [{ tookMs: 25_000 }], warnings: 1 },
    { name: 'two timed-out calls of 15 s', calls: [{ tookMs: 15_000, answered: false }, { tookMs: 15_000, answered: false }], warnings: 1 },
    { name: 'a long run warns once', calls: Array.from({ length: 10 }, () => ({ tookMs: 15_000, answered: false })), warnings: 1 },
    { name: 'a prompt answer between ends the run', calls: [{ tookMs: 15_000, answered: false }, { tookMs: 10 }, { tookMs: 15_000, answered: false }], warnings: 0 },
    { name: 'unanswered fast failures count by wall clock', calls: Array.from({ length: 6 }, () => ({ tookMs: 10, answered: false, gapMs: 5_000 })), warnings: 1 },
    { name: 'runs are per table', calls: [{ tookMs: 15_000, answered: false }, { resource: 'table b', tookMs: 15_000, answered: false }], warnings: 0 },
    { name: 'many prompt calls', calls: Array.from({ length: 100 }, () => ({ tookMs: 4_000 })), warnings: 0 },
  ])('$name: $warnings warning(s)', ({ calls, warnings }) => {
    expect(play(calls)).toHaveLength(warnings);
  });

  it('names the resource, the time and the last outcome, redacted', () => {
    const [line] = play([{ tookMs: 15_000, answered: false }, { tookMs: 12_500, answered: false }]);
    expect(line).toBe('storage: calls to table a stalled for 27.5 s over 2 calls; the last one failed: timed out, see https://x/y?[redacted]');
    expect(STORAGE_STALL_WARN_MS).toBe(25_000);
  });
});
