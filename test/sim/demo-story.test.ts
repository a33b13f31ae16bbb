// The demo's story of a pool sized by a target, told on the console and on the status page: the
// target `jobs` sizes the pool `workers`, which grows in chunks of 2, shrinks by the VMs it chose
// (parking 2 in its warm buffer, deleting the others, sparing the one protected from scale-in),
// wakes a parked VM on the next rise, and backs off after a failed VM. Real time
// on Azurite and the simulators (about a minute): the demo's steps wait for the pool to settle,
// so a slow machine makes it slower, not different.
import { expect, it } from 'vitest';
import { runDemo } from '../../sim/demo.js';

it('the demo sizes workers by jobs: chunks of 2 up, the chosen VMs parked or deleted with the protected one spared, one woken, then a back-off', async () => {
  let out = '';
  let page = '';
  const stop = new AbortController();
  // The last beat: the second rise after the scale-in meets a failed VM and backs off.
  const wake = /▶ load for jobs rises to 15/;
  const rise = /▶ load for jobs rises to 35/;
  const write = (s: string) => {
    out += s;
    const afterRise = out.slice(out.search(rise));
    if (rise.test(out) && /workers: backed off: no new capacity/.test(afterRise) && !stop.signal.aborted && page === '') {
      page = 'reading';
      const url = /Status page: +(\S+)/.exec(out)![1]!;
      fetch(url, { headers: { accept: 'text/html' } })
        .then((r) => r.text())
        .then((html) => (page = html))
        .catch((err: unknown) => (page = `fetch failed: ${String(err)}`))
        .finally(() => stop.abort());
    }
  };
  const code = await runDemo({ stdout: write, stderr: write, env: {} }, { forMs: 170_000, signal: stop.signal, storyEveryMs: 500, statusPort: 0, cliCommand: 'node /x/cli.js' });
  expect(code).toBe(0);
  expect(out).toMatch(/In another terminal: .*\n +node \/x\/cli\.js --config \S+ enqueue --target jobs --load 35/);

  // Out: the target asks for 6, the pool raises the capacity two at a time.
  expect(out).toMatch(/jobs: scaled \d+ → 6/);
  const raises = [...out.matchAll(/workers: capacity raised (\d+) → (\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  expect(raises.slice(0, 2)).toEqual([[2, 4], [4, 6]]);
  for (const [from, to] of raises) expect(to! - from!).toBeLessThanOrEqual(2);
  expect(out).toMatch(/ {2}= workers: wanted 6, capacity 6, 6 healthy, inventory 6/);

  // In: VM 1 is protected, so it stays and the oldest other VM (0) goes with the newest; two
  // of the VMs that go are parked (warm.max 2), the others deleted.
  expect(out).toMatch(/workers: rg-demo\/vmss-workers\/1 is protected from scale-in/);
  expect(out).toMatch(/workers: spared rg-demo\/vmss-workers\/1: protected from scale-in/);
  const ids = (text: string, what: RegExp) => [...text.matchAll(what)].map((m) => Number(m[1]));
  const beforeWake = out.slice(0, out.search(wake));
  const deleted = ids(beforeWake, /workers: deleting rg-demo\/vmss-workers\/(\d+)/g);
  const parked = ids(beforeWake, /workers: parked rg-demo\/vmss-workers\/(\d+) in the warm buffer/g);
  expect(parked).toHaveLength(2);
  expect([...deleted, ...parked].sort((a, b) => a - b)).toEqual([0, 2, 3, 4, 5]);
  expect(ids(out, /workers: (?:deleting|parked) rg-demo\/vmss-workers\/(\d+)/g)).not.toContain(1);
  expect(beforeWake).toMatch(/workers: capacity \d → \d: the deleted VMs left it/);
  expect(beforeWake).toMatch(/ {2}= workers: wanted 1, capacity 3, 1 healthy, 2 warm, inventory 3\n/);

  // Up by one: a parked VM is started, nothing created.
  const waking = out.slice(out.search(wake), out.search(rise));
  expect(ids(waking, /workers: waking rg-demo\/vmss-workers\/(\d+) from the warm buffer/g)).toHaveLength(1);
  expect(parked).toContain(ids(waking, /workers: waking rg-demo\/vmss-workers\/(\d+)/g)[0]);
  expect(waking).not.toMatch(/capacity raised/);
  expect(waking).toMatch(/ {2}= workers: wanted 2, capacity 3, 2 healthy, 1 warm, inventory 3\n/);

  // Up again: the last parked VM is started, a VM created fails, is fast-deleted, and creations back off.
  const afterRise = out.slice(out.search(rise));
  expect(afterRise).toMatch(/workers: waking rg-demo\/vmss-workers\/\d+ from the warm buffer/);
  expect(afterRise).toMatch(/workers: rg-demo\/vmss-workers\/\d+ failed: OutOfResources/);
  expect(afterRise).toMatch(/workers: backed off: no new capacity for 4m\d+s/);

  // The status page: the pool's wanted count, the protected VM, the scale-in, the parking and the
  // wakes marked on its timeline, and the target's timeline.
  expect(page).toMatch(/data-object="pool\/workers"/);
  const pool = page.slice(page.indexOf('data-object="pool/workers"'));
  expect(pool).toMatch(/data-field="wanted">wanted [34]</);
  expect(pool).toMatch(/class="event event-other"[^>]*><time>[^<]*<\/time> parked [^<]*\(warm buffer\)</);
  expect(pool).toMatch(/class="event event-other"[^>]*><time>[^<]*<\/time> started [^<]*\(warm buffer\)</);
  expect(pool).toMatch(/vmss-workers\/virtualMachines\/1<\/code><\/td><td>Running \(protected from scale-in\)/);
  expect(pool).toMatch(/class="event event-deleted"[^>]*><time>[^<]*<\/time> deleted [^<]*rg-demo\/vmss-workers\/\d[^<]*\(scale-in\)</);
  expect(page).toMatch(/data-object="target\/jobs"[\s\S]*class="chart"/);
}, 200_000);
