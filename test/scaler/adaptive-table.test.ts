// The adaptive policy's rules as tables (src/scaler/recommend/adaptive.ts, headroom.ts,
// adaptive-history.ts): each row an input and its hand-computed answer, side by side.
import { describe, expect, it } from 'vitest';
import { delayWindows, levelNow, levels, MAX_STARTUP_DELAY_MS, nextScale, observeStartup, recommendation, startupDelayOf, type RuleInput, type StartupState } from '../../src/scaler/recommend/adaptive.js';
import { completeMinutes, minutesKept, recordDecision, recordMinute, type MinuteHistory } from '../../src/scaler/recommend/adaptive-history.js';
import { historyText } from '../../src/scaler/recommend/adaptive-stage.js';
import { NO_DAY_DEMAND, budgetInForce, calibrate, demandWeighted, evidenceChoices, foldBudget, foldDayDemand, holdsCalibrationWindow, replayer, unservedShare, windowDemand, youngEvidence } from '../../src/scaler/recommend/headroom.js';

const MIN = 60_000;

describe('StartupDelay: learned from the raises', () => {
  const rows: { name: string; state: StartupState; seen: { scale: number; ready: number; startable?: number }; planned: number; now: number; want: StartupState }[] = [
    { name: 'a raise above the scale and the ready count is watched from now', state: { observed: [] }, seen: { scale: 2, ready: 2 }, planned: 5, now: 10 * MIN, want: { pending: { at: 10 * MIN, to: 5 }, observed: [] } },
    { name: 'a plan that keeps the scale watches nothing', state: { observed: [] }, seen: { scale: 2, ready: 2 }, planned: 2, now: 10 * MIN, want: { observed: [] } },
    { name: 'the ready count reaching the raise records the time it took', state: { pending: { at: 0, to: 5 }, observed: [] }, seen: { scale: 5, ready: 5 }, planned: 5, now: 4 * MIN, want: { observed: [4 * MIN] } },
    { name: 'a raise still short of ready keeps being watched', state: { pending: { at: 0, to: 5 }, observed: [] }, seen: { scale: 5, ready: 3 }, planned: 6, now: 2 * MIN, want: { pending: { at: 0, to: 5 }, observed: [] } },
    { name: 'a raise the plan no longer asks for is dropped unrecorded', state: { pending: { at: 0, to: 5 }, observed: [MIN] }, seen: { scale: 5, ready: 3 }, planned: 3, now: 2 * MIN, want: { observed: [MIN] } },
    { name: 'a raise that never completes counts as the longest delay', state: { pending: { at: 0, to: 5 }, observed: [] }, seen: { scale: 5, ready: 1 }, planned: 5, now: 45 * MIN, want: { observed: [MAX_STARTUP_DELAY_MS] } },
    { name: 'a raise the pool serves wholly by starting deallocated VMs is not watched: it says nothing of a creation', state: { observed: [3 * MIN] }, seen: { scale: 2, ready: 2, startable: 3 }, planned: 5, now: 10 * MIN, want: { observed: [3 * MIN] } },
    { name: 'a raise past the deallocated VMs needs a creation: watched', state: { observed: [] }, seen: { scale: 2, ready: 2, startable: 2 }, planned: 5, now: 10 * MIN, want: { pending: { at: 10 * MIN, to: 5 }, observed: [] } },
    { name: 'a raise watched goes on being watched while the buffer serves a further one', state: { pending: { at: 0, to: 5 }, observed: [] }, seen: { scale: 5, ready: 3, startable: 4 }, planned: 7, now: MIN, want: { pending: { at: 0, to: 5 }, observed: [] } },
    { name: 'only the latest five delays are kept', state: { pending: { at: 0, to: 2 }, observed: [1, 2, 3, 4, 5] }, seen: { scale: 2, ready: 2 }, planned: 2, now: 6, want: { observed: [2, 3, 4, 5, 6] } },
  ];
  it.each(rows)('$name', ({ state, seen, planned, now, want }) => {
    expect(observeStartup(state, seen, planned, now)).toEqual(want);
  });

  it.each([
    { name: 'two observations leave the default', observed: [4 * MIN, 5 * MIN], want: { ms: 3 * MIN, from: 'default' } },
    { name: 'three make it learned: the longest of them', observed: [4 * MIN, 6 * MIN, 5 * MIN], want: { ms: 6 * MIN, from: 'learned' } },
    { name: 'pods faster than the default learn a shorter delay', observed: [10_000, 12_000, 11_000], want: { ms: 12_000, from: 'learned' } },
  ])('$name', ({ observed, want }) => {
    expect(startupDelayOf({ observed }, 3 * MIN)).toEqual(want);
  });
});

describe('what the start-up delay means in minutes', () => {
  it.each([
    // 16 × 3 = 48 minutes of evidence, a fall to the highest of 6 × 3 = 18
    { name: 'VMs created in 3 minutes: decided 3 ahead, the whole minute exposed', delay: 3 * MIN, want: { ahead: 3, exposure: 1, evidence: 48, fallTo: 18 } },
    // 16 × 0.5 = 8 and 6 × 0.5 = 3; capacity raised on a minute's reading is ready half-way through it
    { name: 'pods ready in 30 s: decided a minute ahead, half the minute exposed', delay: 30_000, want: { ahead: 1, exposure: 0.5, evidence: 8, fallTo: 3 } },
    { name: 'a delay that is not a whole number of minutes rounds up', delay: 100_000, want: { ahead: 2, exposure: 1, evidence: 27, fallTo: 10 } },
    // 16 × 30 = 480 minutes would be; the evidence stops at 4 hours, the fall-to window (6 × 30 = 180) below it
    { name: 'the longest start-up waits at most 4 hours of evidence', delay: MAX_STARTUP_DELAY_MS, want: { ahead: 30, exposure: 1, evidence: 240, fallTo: 180 } },
  ])('$name', ({ delay, want }) => {
    expect(delayWindows(delay)).toEqual(want);
  });
});

describe('the rule: raise at once, fall on evidence', () => {
  const rule = (over: Partial<RuleInput>): RuleInput => ({ scale: 5, recommended: 5, evidenceHigh: 5, recentHigh: 5, floor: 0, ...over });
  it.each([
    { name: 'a recommendation above the scale raises to it, named Headroom', input: rule({ recommended: 8 }), want: { replicas: 8, boundBy: 'Headroom' } },
    { name: 'the load of the minute itself above the scale raises to it (pods: capacity lands within the minute)', input: rule({ recommended: 4, floor: 7 }), want: { replicas: 7 } },
    { name: 'a recommendation at the scale keeps it', input: rule({}), want: { replicas: 5 } },
    { name: 'a lower recommendation while the evidence window still reaches the scale holds it', input: rule({ recommended: 3, evidenceHigh: 5, recentHigh: 4 }), want: { replicas: 5, boundBy: 'ScaleDownEvidence' } },
    { name: 'no evidence window yet (a new target): no fall', input: rule({ recommended: 2, evidenceHigh: undefined, recentHigh: 2 }), want: { replicas: 5, boundBy: 'ScaleDownEvidence' } },
    { name: 'the whole evidence window below the scale: a fall to the fall-to window’s highest', input: rule({ recommended: 2, evidenceHigh: 4, recentHigh: 3 }), want: { replicas: 3, boundBy: 'ScaleDownEvidence' } },
    { name: 'a fall to what the load asks now carries no rule', input: rule({ recommended: 2, evidenceHigh: 4, recentHigh: 2 }), want: { replicas: 2 } },
    { name: 'a fall never below the minute’s own load', input: rule({ recommended: 2, evidenceHigh: 3, recentHigh: 2, floor: 4 }), want: { replicas: 4 } },
  ])('$name', ({ input, want }) => {
    expect(nextScale(input)).toEqual(want);
  });

  it.each([
    { name: 'the level plus the headroom, rounded up', level: 41, headroom: 8, want: 5 },
    { name: 'a running target keeps one replica', level: 0, headroom: 0, want: 1 },
  ])('recommendation: $name', ({ level, headroom, want }) => {
    expect(recommendation(level, headroom, 10)).toBe(want);
  });

  it('the level is the mean of the last 20 minutes (fewer at the start)', () => {
    const load = [...Array<number>(20).fill(10), 30];
    const out = levels(load);
    expect(out[0]).toBe(10);
    expect(out[19]).toBe(10);
    // minute 20: nineteen 10s and a 30 → 220 ÷ 20
    expect(out[20]).toBe(11);
  });
});

describe('the level a young target follows', () => {
  const vms = delayWindows(3 * MIN);
  const pods = delayWindows(30_000);
  const load = [...Array<number>(18).fill(10), 40, 40];
  it.each([
    // 20 minutes: eighteen 10s and two 40s → 260 ÷ 20
    { name: 'calibrated: the 20-minute mean', windows: vms, calibrated: true, want: 13 },
    // VMs, 3 minutes ahead: the last 2 × 3 minutes, four 10s and two 40s → 120 ÷ 6
    { name: 'young VMs: the last two start-up delays (6 minutes)', windows: vms, calibrated: false, want: 20 },
    // pods, 1 minute ahead: the last 2 minutes → 80 ÷ 2
    { name: 'young pods: the last two minutes', windows: pods, calibrated: false, want: 40 },
  ])('$name', ({ windows, calibrated, want }) => {
    expect(levelNow(load, windows, calibrated)).toBe(want);
  });

  it.each([
    // VMs 3 minutes ahead: 120 minutes and the 3 the replay's first minute looks back on
    { minutes: 122, windows: vms, want: false },
    { minutes: 123, windows: vms, want: true },
    { minutes: 121, windows: pods, want: true },
  ])('$minutes whole minutes calibrate ($want) for $windows.ahead minute(s) ahead', ({ minutes, windows, want }) => {
    expect(holdsCalibrationWindow(minutes, windows)).toBe(want);
  });
});

describe('the minutes a target remembers', () => {
  it('the longest history, with the widest values, fits a Table string property (32K characters)', () => {
    const n = minutesKept(delayWindows(MAX_STARTUP_DELAY_MS));
    // Loads are kept to six significant digits as they are recorded: the widest is like 1.23457e+21.
    const history: MinuteHistory = { start: 29_000_000, load: Array<number>(n).fill(1.234_57e21), recommended: Array<number>(n).fill(10_000), ready: Array<number>(n).fill(10_000), scale: Array<number>(n).fill(10_000) };
    const text = historyText(history, [29_000_100, MAX_STARTUP_DELAY_MS, 12_345.678_901], [29_000_100, -0.123_456_789]);
    expect(text.length).toBeLessThan(32_000);
    expect(JSON.parse(text).h[2]).toBe(12_345.7);
  });

  const empty: MinuteHistory = { start: 0, load: [], recommended: [], ready: [], scale: [] };
  it('a minute keeps its highest load and its lowest ready count', () => {
    let h = recordMinute(empty, 100, { load: 10, ready: 4 }, 10);
    h = recordMinute(h, 100, { load: 14, ready: 3 }, 10);
    h = recordMinute(h, 100, { load: 12, ready: 5 }, 10);
    expect(h).toEqual({ start: 100, load: [14], recommended: [0], ready: [3], scale: [0] });
  });

  it('skipped minutes hold the minute before; the oldest beyond the limit go', () => {
    let h = recordDecision(recordMinute(empty, 100, { load: 10, ready: 4 }, 3), 2, 2);
    h = recordMinute(h, 103, { load: 30, ready: 2 }, 3);
    expect(h).toEqual({ start: 101, load: [10, 10, 30], recommended: [2, 2, 0], ready: [4, 4, 2], scale: [2, 2, 2] });
    expect(completeMinutes(h).load).toEqual([10, 10]);
  });

  it('a decision keeps the highest recommendation of its minute and the latest scale', () => {
    let h = recordMinute(empty, 5, { load: 1, ready: 1 }, 10);
    h = recordDecision(h, 4, 4);
    h = recordDecision(h, 3, 6);
    expect(h.recommended).toEqual([4]);
    expect(h.scale).toEqual([6]);
  });

  it('a clock that steps back starts the history over', () => {
    const h = recordMinute(recordMinute(empty, 100, { load: 10, ready: 4 }, 10), 90, { load: 7, ready: 1 }, 10);
    expect(h).toEqual({ start: 90, load: [7], recommended: [0], ready: [1], scale: [0] });
  });
});

describe('the budget and the headroom', () => {
  it.each([
    { name: 'enough supply leaves nothing unserved', demand: 4, supply: 4, exposure: 1, want: 0 },
    { name: 'one unit short of four, the whole minute', demand: 4, supply: 3, exposure: 1, want: 0.25 },
    { name: 'the same for the half-minute before pods raised on the minute are ready', demand: 4, supply: 3, exposure: 0.5, want: 0.125 },
    { name: 'a minute without demand leaves nothing unserved', demand: 0, supply: 0, exposure: 1, want: 0 },
  ])('unserved share: $name', ({ demand, supply, exposure, want }) => {
    expect(unservedShare(demand, supply, exposure)).toBe(want);
  });

  it.each([
    { name: 'a minute within the budget saves the rest of it', balance: 0, unserved: 0, want: 0.01 },
    { name: 'a minute over it draws on the balance', balance: 0, unserved: 0.26, want: -0.25 },
    // a day's budget at most either way: 0.01 × 1,440
    { name: 'the balance stops at a day’s budget', balance: 14.4, unserved: 0, want: 14.4 },
    { name: 'and at a day’s overspending', balance: -14.4, unserved: 1, want: -14.4 },
  ])('balance: $name', ({ balance, unserved, want }) => {
    expect(foldBudget(balance, unserved, 0.01)).toBeCloseTo(want, 12);
  });

  it.each([
    { name: 'no balance: the configured budget', balance: 0, want: 0.01 },
    { name: 'a day’s saving doubles it', balance: 14.4, want: 0.02 },
    { name: 'overspending lowers it, to a quarter at most', balance: -14.4, want: 0.0025 },
  ])('in force: $name', ({ balance, want }) => {
    expect(budgetInForce(0.01, balance)).toBeCloseTo(want, 12);
  });

  it.each([
    { name: 'a window as busy as the day: the budget in force', window: 8, day: 8, want: 0.01 },
    { name: 'a busier one spends more of it, in proportion', window: 12, day: 8, want: 0.015 },
    { name: 'a quieter one less', window: 6, day: 8, want: 0.0075 },
    { name: 'twice the budget at most', window: 30, day: 8, want: 0.02 },
    { name: 'half of it at least (an idle night)', window: 0, day: 8, want: 0.005 },
    { name: 'no day seen yet: the budget in force', window: 5, day: 0, want: 0.01 },
  ])('weighted by demand: $name', ({ window, day, want }) => {
    expect(demandWeighted(0.01, window, day === 0 ? NO_DAY_DEMAND : { mean: day, minutes: 1_440 })).toBeCloseTo(want, 12);
  });

  it('the day’s demand is a running mean for its first day, then weighted over the last day', () => {
    let day = NO_DAY_DEMAND;
    for (const d of [2, 4, 6]) day = foldDayDemand(day, d);
    expect(day).toEqual({ mean: 4, minutes: 3 });
    for (let m = 3; m < 1_440; m++) day = foldDayDemand(day, 4);
    expect(day).toEqual({ mean: 4, minutes: 1_440 });
    // A day old: each minute moves it by 1 ÷ 1,440 of its difference, never more minutes.
    expect(foldDayDemand(day, 1_444)).toEqual({ mean: 5, minutes: 1_440 });
  });

  it('a window’s demand is the mean replicas of its last two hours', () => {
    // 130 minutes: 10 at 100 (outside the window), then 60 at 5 and 60 at 25, 10 per replica → 1 and 3.
    const load = [...Array<number>(10).fill(100), ...Array<number>(60).fill(5), ...Array<number>(60).fill(25)];
    expect(windowDemand(load, 10)).toBe(2);
    expect(windowDemand([], 10)).toBe(0);
  });

  // 160 minutes alternating 0 and 20, 10 per replica: after 20 minutes every level is 10, one
  // replica recommended; the minutes at 20 ask for 2 → half of their demand unserved for the whole
  // minute; over the last 120 minutes (60 of them at 20) 60 × 0.5 ÷ 120 = 0.25.
  const alternating = { load: Array.from({ length: 160 }, (_, i) => (i % 2 === 1 ? 20 : 0)), scale: Array<number>(160).fill(0) };
  const quick = { ahead: 1, exposure: 1, evidence: 1, fallTo: 1 };
  const replayUnserved = (history: { load: number[]; scale: number[] }, headroom: number, windows: typeof quick, tpr: number) => replayer(history, windows, tpr)?.(headroom, windows.evidence).unserved;
  const replayOutcome = (history: { load: number[]; scale: number[] }, headroom: number, windows: typeof quick, tpr: number) => replayer(history, windows, tpr)?.(headroom, windows.evidence);
  const calibrateHeadroom = (history: { load: number[]; scale: number[] }, windows: typeof quick, budget: number, tpr: number) => calibrate(history, windows, [windows.evidence], budget, tpr).headroom;
  it('the replay counts the demand its rule would have left unserved', () => {
    expect(replayUnserved(alternating, 0, quick, 10)).toBe(0.25);
    // any headroom above 0 recommends 2: nothing unserved
    expect(replayUnserved(alternating, 5, quick, 10)).toBe(0);
    // fewer minutes than the calibration window: no answer
    expect(replayUnserved({ load: alternating.load.slice(0, 100), scale: alternating.scale.slice(0, 100) }, 0, quick, 10)).toBeUndefined();
  });

  it.each([
    { name: 'a load the rule serves without headroom gets none', history: { load: Array<number>(160).fill(10), scale: Array<number>(160).fill(1) }, budget: 0.01, want: 0 },
    { name: 'a budget the replay already keeps needs none', history: alternating, budget: 0.3, want: 0 },
    // the least headroom with nothing unserved is any above 0: the search halves (20 + 10) twelve times
    { name: 'otherwise the least headroom within the budget', history: alternating, budget: 0.01, want: 30 / 4096 },
    { name: 'a history shorter than the window gets none', history: { load: alternating.load.slice(0, 100), scale: alternating.scale.slice(0, 100) }, budget: 0.01, want: 0 },
  ])('calibration: $name', ({ history, budget, want }) => {
    expect(calibrateHeadroom(history, quick, budget, 10)).toBeCloseTo(want, 12);
  });

  // The evidence window is calibrated with the headroom: windows of 4 and 3 minutes (the longest
  // and two thirds of it), each with its least headroom, the one that held least wins.
  const longest = { ...quick, evidence: 4 };
  const steady = { load: Array<number>(160).fill(10), scale: Array<number>(160).fill(1) };
  // 60 minutes at 100 (10 replicas), then 10 (1 replica): the level falls over 20 minutes and the
  // recommendation with it; the demand is served at every scale the rule keeps (no headroom), and
  // the window that waits least gives the most back.
  const fallen = { load: [...Array<number>(60).fill(100), ...Array<number>(100).fill(10)], scale: Array<number>(160).fill(10) };
  it.each([
    { name: 'a load that never falls: every window holds the same, the longest is kept (fewer actions)', history: steady, want: { headroom: 0, evidence: 4 } },
    { name: 'a lasting fall: the shorter window gives back sooner', history: fallen, want: { headroom: 0, evidence: 3 } },
    // No replay, no budget to weigh the windows by: a young target's, half the longest, which holds
    // less than either weighed without headroom, even on the steady load whose replay keeps the longest (above).
    { name: 'a history shorter than the calibration window: a young target’s window and no headroom', history: { load: steady.load.slice(0, 100), scale: steady.scale.slice(0, 100) }, want: { headroom: 0, evidence: 2 } },
    // at each window the alternating load needs the same headroom (30 ÷ 4096, as above) and holds 2 throughout
    { name: 'a load each window serves alike at the same cost: the longest', history: alternating, want: { headroom: 30 / 4096, evidence: 4 } },
  ])('calibration with the evidence window: $name', ({ history, want }) => {
    const got = calibrate(history, longest, evidenceChoices(longest), 0.01, 10);
    expect(got.evidence).toBe(want.evidence);
    expect(got.headroom).toBeCloseTo(want.headroom, 12);
  });

  it('no evidence window weighed is shorter than the fall-to window (a fall goes no lower than its highest)', () => {
    for (const delay of [10_000, 30_000, 3 * MIN, 100_000, MAX_STARTUP_DELAY_MS]) {
      const windows = delayWindows(delay);
      expect(evidenceChoices(windows)[0]).toBe(windows.evidence);
      for (const evidence of evidenceChoices(windows)) expect(evidence).toBeGreaterThanOrEqual(windows.fallTo);
    }
  });

  it.each([
    { name: 'pods (30 s): 8 delays, half the longest 8 minutes', delay: 30_000, want: 4 },
    { name: 'VMs (3 min): 8 delays, half the longest 48 minutes', delay: 3 * MIN, want: 24 },
    { name: 'a 30-minute start-up: the fall-to window (6 delays), the longest capped at 4 hours', delay: MAX_STARTUP_DELAY_MS, want: 180 },
  ])('a young target’s evidence window, half the longest and at least the fall-to window: $name', ({ delay, want }) => {
    expect(youngEvidence(delayWindows(delay))).toBe(want);
  });

  it('a shorter evidence window holds less where the load has fallen, and the replay says how much', () => {
    const held = (evidence: number) => replayOutcome(fallen, 0, { ...quick, evidence }, 10)!.held;
    expect(held(1)).toBeLessThan(held(2));
    expect(held(2)).toBeLessThan(held(4));
    // Nothing unserved either way: every demand at or below the scale kept.
    expect(replayOutcome(fallen, 0, { ...quick, evidence: 1 }, 10)!.unserved).toBe(0);
  });
});
