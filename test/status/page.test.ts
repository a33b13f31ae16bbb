import { describe, expect, it } from 'vitest';
import { esc, scriptJson } from '../../src/status/page/html.js';
import { formatDuration } from '../../src/status/format.js';
import { refreshSeconds, statusFormat } from '../../src/status/page/negotiate.js';
import { refreshQuery, renderStatusPage, type PageOptions } from '../../src/status/page/page.js';
import { MAX_CHART_POINTS, poolChart, targetChart } from '../../src/status/page/timeline.js';
import { PAGE_SECTIONS } from '../../src/status/page/selection.js';
import { errorPage } from '../../src/status/page/status-page.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { NO_POOL_NOTES } from '../../src/status/pool-notes.js';
import type { TargetStatus } from '../../src/status/target-status.js';
import type { Status } from '../../src/status/status.js';
import type { HistoryRow } from '../../src/state/history.js';

const NOW = Date.UTC(2026, 10, 30, 10, 30, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const vm = (n: number) => `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss/virtualMachines/${n}`;

function pool(overrides: Partial<PoolStatus> = {}): PoolStatus {
  return {
    name: 'workers',
    scaleSet: { resourceGroup: 'rg', name: 'vmss', orchestrationMode: 'Uniform', capacity: 3 },
    cache: { lastRefresh: iso(NOW - 38_000), nextRefresh: iso(NOW + 22_000), size: 3, refreshes: 4, lastError: null, slowdown: null },
    instances: [
      { id: vm(0), state: 'Running', powerState: 'PowerState/running', errorInfo: null },
      { id: vm(1), state: 'Running', powerState: 'PowerState/running', errorInfo: null },
      { id: vm(2), state: 'Creating', powerState: null, errorInfo: null },
    ],
    machines: [vm(0), vm(1)].map((providerId) => ({ providerId, providerStatus: 'Running', address: null, createdAt: null, updatedAt: null })),
    safetySwitch: null,
    counts: { healthy: 2, broken: 0, creating: 1, warm: 0, stopped: 0, deleting: 0, unmanaged: 1, missing: 0 },
    backoffUntil: null,
    ...NO_POOL_NOTES,
    ...overrides,
  };
}

function target(overrides: Partial<TargetStatus> = {}): TargetStatus {
  return {
    name: 'web',
    desiredScale: 3,
    actualScale: 2,
    active: 'True',
    activeSince: iso(NOW - 600_000),
    reason: null,
    requestedScale: 3,
    activatorSeenSince: null,
    lastActivation: { at: iso(NOW - 120_000), latencyMs: 3017 },
    wakingSince: null,
    panicSince: null,
    lastError: null,
    sources: [{ name: 'load', kind: 'http', value: 25, at: iso(NOW - 5_000), error: null }],
    ...overrides,
  };
}

const status = (s: Partial<Status> = {}): Status => ({ pools: [pool()], targets: [target()], probes: [], decisions: [], ...s });
const options = (o: Partial<PageOptions> = {}): PageOptions => ({ now: NOW, history: new Map(), refresh: { query: 'code=k', seconds: 15 }, nonce: 'n0nce', ...o });
/** A change row `secondsAgo` before NOW, as the store reads it back. */
const row = (object: string, secondsAgo: number, fields: HistoryRow['fields'], events: string[] = []): HistoryRow => {
  const at = NOW - secondsAgo * 1000;
  return { object, key: iso(at), at, fields, events };
};
/** A minute row of load samples (ms into the minute, value), as the store reads it back. */
const loadRow = (object: string, minuteStart: number, points: [number, number][]): HistoryRow => {
  const values = points.map(([, v]) => v);
  return {
    object,
    key: `${iso(minuteStart).slice(0, 16)}Z`,
    at: minuteStart,
    events: [],
    load: { avg: values.reduce((a, b) => a + b, 0) / values.length, min: Math.min(...values), max: Math.max(...values), points: points.map(([ms, value]) => ({ at: minuteStart + ms, value })) },
  };
};

describe('choosing HTML or JSON', () => {
  it.each([
    { name: 'a browser gets the page', accept: 'text/html,application/xhtml+xml,*/*;q=0.8', format: null, want: 'html' },
    { name: 'curl gets JSON', accept: '*/*', format: null, want: 'json' },
    { name: 'no Accept header gets JSON', accept: null, format: null, want: 'json' },
    { name: '?format=json forces JSON for a browser', accept: 'text/html', format: 'json', want: 'json' },
    { name: '?format=html forces the page', accept: 'application/json', format: 'html', want: 'html' },
  ])('$name', ({ accept, format, want }) => {
    expect(statusFormat(accept, format)).toBe(want);
  });

  it("reloads with the function key, filter and period it was opened with, and nothing else", () => {
    expect(refreshQuery(new URLSearchParams('code=abc%2B%3D&format=html&object=pool%2Fworkers&match=web&decisions=9&refresh=5'))).toBe('code=abc%2B%3D&object=pool%2Fworkers&match=web&refresh=5');
    expect(refreshQuery(new URLSearchParams(''))).toBe('');
    expect([refreshSeconds(null), refreshSeconds('0'), refreshSeconds('1'), refreshSeconds('30'), refreshSeconds('x')]).toEqual([15, 0, 2, 30, 15]);
  });
});

describe('the status page', () => {
  it('escapes everything that comes from state, in text and in the script data', () => {
    const evil = '<img src=x onerror=alert(1)>';
    const html = renderStatusPage(
      status({ pools: [pool({ name: evil })], decisions: [{ at: iso(NOW), object: `pool/${evil}`, decision: '</script><script>alert(2)</script>', reason: `"'&` }] }),
      options(),
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>alert(2)');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&quot;&#39;&amp;');
    expect(esc('a<b')).toBe('a&lt;b');
    expect(scriptJson({ x: '</script>\u2028' })).toBe('{"x":"\\u003c/script\\u003e\\u2028"}');
    expect(JSON.parse(scriptJson({ x: '</script>&' }))).toEqual({ x: '</script>&' });
  });

  it('shows a tripped safety switch with the exact ids on each side', () => {
    const html = renderStatusPage(status({ pools: [pool({ safetySwitch: { providerOnly: [vm(7)], inventoryOnly: [vm(8), vm(9)], since: iso(NOW - 90_000) } })] }), options());
    expect(html).toMatch(/Safety switch tripped<\/strong> since 10:28:30Z \(1m30s ago\)/);
    const sides = html.slice(html.indexOf('only in ARM'));
    expect(sides).toMatch(new RegExp(`only in ARM \\(1\\)</h3><ul><li><code>${escapeRe(vm(7))}</code>`));
    expect(sides).toMatch(new RegExp(`only in the inventory \\(2\\)</h3><ul><li><code>${escapeRe(vm(8))}</code></li><li><code>${escapeRe(vm(9))}</code>`));
    expect(renderStatusPage(status(), options())).toContain('safety switch: clear');
  });

  it('shows capacity, VMs by health as status counts them, the inventory, the backoff countdown and the cache age', () => {
    const html = renderStatusPage(status({ pools: [pool({ backoffUntil: iso(NOW + 252_000) })] }), options());
    expect(html).toContain('capacity 3');
    expect(html).toContain('<span data-field="healthy">2 healthy</span>, <span data-field="broken">0 broken</span>, <span data-field="creating">1 creating</span>');
    expect(html).toContain('inventory 2');
    expect(html).toContain(`<span class="countdown" data-until="${NOW + 252_000}">4m12s left</span>`);
    expect(html).toMatch(/instance cache <span class="age" data-since="\d+">38s<\/span> old, next refresh in 22s/);
  });

  it('says a refresh that is due is due, not that it was "0s ago"', () => {
    const cache = { ...pool().cache!, nextRefresh: iso(NOW - 2_000) };
    const html = renderStatusPage(status({ pools: [pool({ cache })] }), options());
    expect(html).toContain('refresh due on the next pass');
    expect(html).not.toMatch(/next refresh \d+s ago/);
  });

  it('lists each load source with its kind, newest value and age, or why it fails', () => {
    const sources = [
      { name: 'web', kind: 'prometheus', value: 45, at: iso(NOW - 5_000), error: null },
      { name: 'jobs', kind: 'queue', value: null, at: null, error: 'queue jobs: <no answer> within 5000 ms' },
    ];
    const html = renderStatusPage(status({ targets: [target({ sources })] }), options());
    expect(html).toContain('<li data-source="web">web (prometheus): 45 (5s ago)</li>');
    expect(html).toContain('<li data-source="jobs">jobs (queue): no value yet <span class="alert">failing: queue jobs: &lt;no answer&gt; within 5000 ms</span></li>');
  });

  it('shows how old an azureMonitor value\'s data is, beside when it was read', () => {
    const sources = [{ name: 'cpu', kind: 'azureMonitor', value: 80, at: iso(NOW - 20_000), error: null, measuredAt: iso(NOW - 180_000) }];
    const html = renderStatusPage(status({ targets: [target({ sources })] }), options());
    expect(html).toContain('<li data-source="cpu">cpu (azureMonitor): 80 (20s ago), data from 3 min ago</li>');
  });

  it('shows the Active condition and the activation latencies of the hour', () => {
    const history = new Map([['target/web', [row('target/web', 300, { desired: 3, scale: 3, ready: 3, activationMs: 2500 })]]]);
    const html = renderStatusPage(status({ targets: [target({ active: 'False', reason: 'NoTraffic' })] }), options({ history }));
    expect(html).toMatch(/Active <strong class="condition condition-False">False<\/strong> \(NoTraffic\) since 10:20:00Z/);
    expect(html).toContain('last wake from zero: 3017 ms');
    expect(html).toMatch(/this hour \(1\):<\/p><ul><li>10:25:00Z: 2500 ms<\/li>/);
  });

  it('marks every decision with its object and hides the others when opened with a filter', () => {
    const decisions = [
      { at: iso(NOW), object: 'pool/workers', decision: 'brought up 2', reason: 'r' },
      { at: iso(NOW - 1000), object: 'target/web', decision: 'scaled 1 → 3', reason: 'r' },
    ];
    const html = renderStatusPage(status({ decisions }), options({ object: 'target/web' }));
    expect(html).toMatch(/<tr data-object="pool\/workers" hidden>/);
    expect(html).toMatch(/<tr data-object="target\/web">/);
    expect(html).toMatch(/<option value="target\/web" selected>/);
  });

  it('inlines uPlot and the data, so the browser fetches nothing', () => {
    const html = renderStatusPage(status(), options({ uplot: { js: 'var uPlot = 1; "</script>"', css: '.u{}' } }));
    expect(html).toContain('<script nonce="n0nce">var uPlot = 1; "<\\/script>"</script>');
    expect(html).toContain('<style nonce="n0nce">.u{}</style>');
    expect(html).not.toMatch(/<script[^>]+src=|<link /);
    const data = JSON.parse(/<script type="application\/json" id="drover-data">(.*?)<\/script>/s.exec(html)![1]!) as { refresh: unknown; charts: { id: string }[] };
    expect(data.refresh).toEqual({ query: 'code=k', seconds: 15 });
    expect(data.charts.map((c) => c.id)).toEqual(['chart-pool_2fworkers', 'chart-target_2fweb']);
  });
});

describe('timelines', () => {
  it('draws each change at its own time and each load sample at its own, holding values between them; desired -1 is a gap', () => {
    const minute = Math.floor(NOW / 60_000) * 60_000 - 60_000;
    const rows = [
      row('target/web', 90, { desired: -1, scale: 1, ready: 1 }),
      loadRow('target/web', minute, [[8_000, 25], [41_000, 0]]),
      row('target/web', 51, { desired: 3, scale: 3, ready: 1 }),
      row('target/web', 45, { desired: 3, scale: 3, ready: 3 }),
      row('target/web', 18, { desired: 1, scale: 1, ready: 1 }, ['inactive']),
    ];
    const chart = targetChart(target({ desiredScale: 0, requestedScale: 0, actualScale: 0 }), rows, NOW);
    expect(chart.historyPoints).toBe(5);
    expect(chart.series.map((s) => s.label)).toEqual(['desired', 'scale', 'ready', 'load']);
    const s = (ago: number) => (NOW - ago * 1000) / 1000;
    expect(chart.data).toEqual([
      [s(90), s(52), s(51), s(45), s(19), s(18), s(0)],
      [null, null, 3, 3, 3, 1, 0],
      [1, 1, 3, 3, 3, 1, 0],
      [1, 1, 1, 3, 3, 1, 0],
      [null, 25, 25, 25, 0, 0, 0],
    ]);
    expect(chart.series.map((x) => x.latest)).toEqual([0, 0, 0, 0]);
    expect(chart.events).toEqual([{ at: s(18), text: 'inactive', kind: 'active', label: 'inactive' }]);
    expect(chart.axes).toEqual({ x: 'time (UTC)', count: 'replicas', load: 'load' });
  });

  it("draws every count a pool's rows hold, counts it does not know included, and lists its events newest first", () => {
    const rows = [
      { object: 'pool/workers', key: '2026-11-30T10:27Z', at: NOW - 180_000, events: [], fields: { capacity: 2, running: 2, creating: 0, inventory: 2 } },
      row('pool/workers', 60, { capacity: 4, inventory: 4, healthy: 2, broken: 1, creating: 1, deleting: 0, warm: 2 }, ['rg/vmss/3 failed: OutOfResources (x)']),
      row('pool/workers', 50, { capacity: 4, inventory: 3, healthy: 2, broken: 0, creating: 1, deleting: 1, warm: 2 }, ['deleted rg/vmss/3']),
    ];
    const chart = poolChart(pool(), rows, NOW);
    expect(chart.series.map((x) => x.label)).toEqual(['capacity', 'inventory', 'healthy', 'creating', 'broken', 'deleting', 'running', 'unmanaged', 'warm']);
    expect(chart.data[0]).toEqual([(NOW - 180_000) / 1000, (NOW - 60_000) / 1000, (NOW - 50_000) / 1000, NOW / 1000]);
    expect(chart.data[1]).toEqual([2, 4, 4, 3]);
    expect(chart.data[5]).toEqual([null, 1, 0, 0]);
    expect(chart.events.map((e) => e.kind)).toEqual(['failed', 'deleted']);
    const html = renderStatusPage(status(), options({ history: new Map([['pool/workers', rows]]) }));
    expect(html).toMatch(/<li class="event event-deleted" data-at="\d+"><time>10:29:10Z<\/time> deleted rg\/vmss\/3<\/li><li class="event event-failed"/);
  });

  it('keeps the newest 720 points of a busy hour and says how many earlier ones it left out', () => {
    const rows = Array.from({ length: 1_000 }, (_, i) => row('target/web', 3_000 - i * 3, { desired: i % 5, scale: i % 5, ready: i % 5 }));
    const chart = targetChart(target(), rows, NOW);
    expect(chart.data[0]).toHaveLength(MAX_CHART_POINTS);
    // 1,000 changes and the state now, less the 720 kept.
    expect(chart.droppedPoints).toBe(1_001 - MAX_CHART_POINTS);
    expect(chart.data[0]!.at(-1)).toBe(NOW / 1000);
    const html = renderStatusPage(status({ pools: [] }), options({ history: new Map([['target/web', rows]]) }));
    expect(html).toContain(`(the newest 720 points; ${1_001 - MAX_CHART_POINTS} earlier ones left out)`);
  });

  it('formats durations as an operator reads them', () => {
    expect([0, 999, 38_000, 252_000, 3_600_000 + 300_000, 2 * 86_400_000 + 3_600_000].map(formatDuration)).toEqual(['0s', '0s', '38s', '4m12s', '1h05m', '2d01h']);
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

describe('a fleet larger than the page draws', () => {
  const fleet = status({ pools: [], targets: Array.from({ length: 30 }, (_, n) => target({ name: `web${n}`, ...(n === 17 ? { lastError: 'no answer' } : {}) })) });

  it('draws the first objects, the failing one first, and lists the others linked to their own page with the key kept', () => {
    const html = renderStatusPage(fleet, options());
    const drawn = [...html.matchAll(/<section class="object target" id="target-([^"]+)"/g)].map((m) => m[1]);
    expect(drawn).toEqual(['web17', ...Array.from({ length: PAGE_SECTIONS - 1 }, (_, n) => `web${n}`)]);
    expect(html).toContain(`other objects (${30 - PAGE_SECTIONS})`);
    expect(html).toContain('<a href="?code=k&amp;object=target%2Fweb29">target/web29</a>');
    expect(html).toContain('name="match"');
    expect(html).toContain('<input type="hidden" name="code" value="k">');
  });

  it('says in its own section that an object’s history could not be read, and draws the others', () => {
    const html = renderStatusPage(fleet, options({ unavailable: new Map([['target/web3', 'its history did not answer within 4s']]) }));
    const section = html.slice(html.indexOf('id="target-web3"'), html.indexOf('</section>', html.indexOf('id="target-web3"')));
    expect(section).toContain('timeline unavailable: its history did not answer within 4s');
    expect(section).not.toContain('class="chart"');
    expect(html).not.toContain('"id":"chart-target_2fweb3"');
    expect(html).toContain('"id":"chart-target_2fweb4"');
  });

  it('a page of a small fleet lists nothing and shows no filter', () => {
    const html = renderStatusPage(status(), options());
    expect(html).not.toContain('other objects');
    expect(html).not.toContain('name="match"');
  });
});

describe('the error page', () => {
  it('gives the id under which the log has the details, and nothing more', () => {
    expect(errorPage('<id>')).toContain('the function app log has the details under the error id <code>&lt;id&gt;</code>');
  });
});
