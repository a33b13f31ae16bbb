// Which objects the status page draws and which it lists: a table of fleets and filters, each
// row named for what it shows, with the expected choice beside it.
import { describe, expect, it } from 'vitest';
import { selectObjects, type PageFilter } from '../../src/status/page/selection.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import type { Status } from '../../src/status/status.js';
import type { TargetStatus } from '../../src/status/target-status.js';
import { NO_POOL_NOTES } from '../../src/status/pool-notes.js';

const AT = Date.UTC(2026, 11, 7, 3, 0, 0);

function pool(name: string, trouble: Partial<PoolStatus> = {}): PoolStatus {
  return {
    name,
    scaleSet: { resourceGroup: 'rg', name, orchestrationMode: 'Uniform', capacity: 2 },
    cache: null,
    instances: [],
    machines: [],
    safetySwitch: null,
    counts: { healthy: 2, broken: 0, creating: 0, warm: 0, stopped: 0, deleting: 0, unmanaged: 0, missing: 0 },
    backoffUntil: null,
    ...NO_POOL_NOTES,
    ...trouble,
  };
}

function target(name: string, trouble: Partial<TargetStatus> = {}): TargetStatus {
  return { name, desiredScale: 1, actualScale: 1, active: 'True', activeSince: null, reason: null, requestedScale: 1, activatorSeenSince: null, lastActivation: null, wakingSince: null, panicSince: null, lastError: null, sources: [], ...trouble };
}

const decided = (object: string, secondsAgo: number) => ({ at: new Date(AT - secondsAgo * 1000).toISOString(), object, decision: 'scaled 1 → 2', reason: 'load' });

const fleet: Pick<Status, 'pools' | 'targets' | 'decisions'> = {
  pools: [pool('p0'), pool('p1', { safetySwitch: { providerOnly: [], inventoryOnly: ['x'], since: new Date(AT).toISOString() } }), pool('p2', { counts: { ...pool('p2').counts, broken: 1 } })],
  targets: [target('t0'), target('t1', { lastError: 'no answer' }), target('t2'), target('t3', { wakingSince: new Date(AT).toISOString() }), target('web9')],
  decisions: [decided('target/t2', 5), decided('target/t0', 60), decided('pool/p0', 30)],
};

const cases: { name: string; filter: PageFilter; limit: number; drawn: string[]; listed: string[]; hidden: number }[] = [
  {
    name: 'draws the objects in trouble first, then those with the newest decision, then in the configuration’s order',
    filter: {},
    limit: 5,
    drawn: ['pool/p1', 'pool/p2', 'target/t1', 'target/t3', 'target/t2'],
    listed: ['pool/p0', 'target/t0', 'target/web9'],
    hidden: 0,
  },
  { name: 'puts the object the page was opened on first, whatever its rank', filter: { object: 'target/web9' }, limit: 2, drawn: ['target/web9', 'pool/p1'], listed: ['pool/p2', 'target/t1', 'target/t3', 'target/t2', 'pool/p0', 'target/t0'], hidden: 0 },
  { name: 'keeps only the objects whose key contains the match, case-insensitive', filter: { match: 'WEB' }, limit: 5, drawn: ['target/web9'], listed: [], hidden: 7 },
  { name: 'lists every object drawn past the limit, in rank order', filter: { match: 't' }, limit: 1, drawn: ['target/t1'], listed: ['target/t3', 'target/t2', 'target/t0', 'target/web9'], hidden: 3 },
  { name: 'draws every object of a fleet within the limit, and lists none', filter: {}, limit: 20, drawn: ['pool/p1', 'pool/p2', 'target/t1', 'target/t3', 'target/t2', 'pool/p0', 'target/t0', 'target/web9'], listed: [], hidden: 0 },
];

describe('the objects the status page draws', () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(selectObjects(fleet, c.filter, c.limit)).toEqual({ drawn: c.drawn, listed: c.listed, hidden: c.hidden });
    });
  }
});
