// The local host's fair order (src/host/lanes.ts): lanes take turns, a lane runs at most
// `perLane` at once, and a flood in one lane never keeps another lane's item waiting.
import { describe, expect, it } from 'vitest';
import { Lanes } from '../../src/host/lanes.js';

/** Takes items until `next` gives none, marking none done: what starts at once. */
function startable(lanes: Lanes<string>): string[] {
  const out: string[] = [];
  for (let n = lanes.next(); n; n = lanes.next()) out.push(n.item);
  return out;
}

describe('lanes', () => {
  it.each([
    { name: 'one lane runs in order, perLane at once', perLane: 2, adds: [['web', 'w1'], ['web', 'w2'], ['web', 'w3']], starts: ['w1', 'w2'] },
    { name: 'lanes take turns in the order they arrived', perLane: 1, adds: [['web', 'w1'], ['web', 'w2'], ['api', 'a1'], ['db', 'd1']], starts: ['w1', 'a1', 'd1'] },
    { name: 'a lane behind a flood is reached at once', perLane: 3, adds: [...Array.from({ length: 50 }, (_, i) => ['web', `w${i}`]), ['api', 'a1']], starts: ['w0', 'a1', 'w1', 'w2'] },
    { name: 'nothing waiting: nothing starts', perLane: 4, adds: [], starts: [] },
  ])('$name', ({ perLane, adds, starts }) => {
    const lanes = new Lanes<string>(perLane);
    for (const [lane, item] of adds) lanes.add(lane!, item!);
    expect(startable(lanes)).toEqual(starts);
    expect(lanes.size).toBe(adds.length - starts.length);
  });

  it('a finished item makes room in its own lane only', () => {
    const lanes = new Lanes<string>(1);
    for (const [lane, item] of [['web', 'w1'], ['web', 'w2'], ['api', 'a1'], ['api', 'a2']]) lanes.add(lane!, item!);
    expect(startable(lanes)).toEqual(['w1', 'a1']);
    lanes.done('api');
    expect(startable(lanes)).toEqual(['a2']);
    lanes.done('web');
    expect(startable(lanes)).toEqual(['w2']);
    expect(lanes.size).toBe(0);
  });

  it('a lane emptied and filled again joins the back of the turns', () => {
    const lanes = new Lanes<string>(5);
    lanes.add('web', 'w1');
    lanes.add('api', 'a1');
    expect(lanes.next()?.item).toBe('w1');
    lanes.add('web', 'w2');
    lanes.add('db', 'd1');
    expect(startable(lanes)).toEqual(['a1', 'w2', 'd1']);
  });

  it('drain hands back everything waiting and leaves the lanes empty', () => {
    const lanes = new Lanes<string>(1);
    for (const [lane, item] of [['web', 'w1'], ['web', 'w2'], ['api', 'a1']]) lanes.add(lane!, item!);
    expect(lanes.next()?.item).toBe('w1');
    expect(lanes.drain().sort()).toEqual(['a1', 'w2']);
    expect(lanes.size).toBe(0);
    expect(lanes.next()).toBeUndefined();
  });
});
