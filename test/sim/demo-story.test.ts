// The demo's story of a pool sized by a target, told on the console and on the status page: the
// target `jobs` sizes the pool `workers`, which grows in chunks of 2, shrinks by deleting the VMs
// it chose (sparing the one protected from scale-in), and backs off after a failed VM. Real time
// on Azurite and the simulators (about a minute): the demo's steps wait for the pool to settle,
// so a slow machine makes it slower, not different.
import { expect, it } from 'vitest';
import { runDemo } from '../../sim/demo.js';

it('the demo sizes workers by jobs: chunks of 2 up, the chosen VMs down with the protected one spared, then a back-off', async () => {
  let out = '';
  let page = '';
  const stop = new AbortController();
  // The last beat: the rise after the scale-in meets a failed VM and backs off.
  const rise = /▶ load for jobs rises to 25/;
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

  // In: VM 1 is protected, so it stays and the oldest other VM (0) goes with the newest.
  expect(out).toMatch(/workers: rg-demo\/vmss-workers\/1 is protected from scale-in/);
  expect(out).toMatch(/workers: spared rg-demo\/vmss-workers\/1: protected from scale-in/);
  const deleting = [...out.matchAll(/workers: deleting rg-demo\/vmss-workers\/(\d+)/g)].map((m) => Number(m[1]));
  const beforeRise = out.slice(0, out.search(rise));
  const scaledIn = [...beforeRise.matchAll(/workers: deleting rg-demo\/vmss-workers\/(\d+)/g)].map((m) => Number(m[1]));
  expect(scaledIn.sort((a, b) => a - b)).toEqual([0, 2, 3, 4, 5]);
  expect(deleting).not.toContain(1);
  expect(beforeRise).toMatch(/workers: capacity \d → \d: the deleted VMs left it/);
  expect(beforeRise).toMatch(/ {2}= workers: wanted 1, capacity 1, 1 healthy, inventory 1\n/);

  // Up again: a VM fails, is fast-deleted, and creations back off.
  const afterRise = out.slice(out.search(rise));
  expect(afterRise).toMatch(/workers: rg-demo\/vmss-workers\/\d+ failed: OutOfResources/);
  expect(afterRise).toMatch(/workers: backed off: no new capacity for 4m\d+s/);

  // The status page: the pool's wanted count, the protected VM, the scale-in marked on its timeline,
  // and the target's timeline.
  expect(page).toMatch(/data-object="pool\/workers"/);
  const pool = page.slice(page.indexOf('data-object="pool/workers"'));
  expect(pool).toMatch(/data-field="wanted">wanted 3</);
  expect(pool).toMatch(/vmss-workers\/virtualMachines\/1<\/code><\/td><td>Running \(protected from scale-in\)/);
  expect(pool).toMatch(/class="event event-deleted"[^>]*><time>[^<]*<\/time> deleted [^<]*rg-demo\/vmss-workers\/\d[^<]*\(scale-in\)</);
  expect(page).toMatch(/data-object="target\/jobs"[\s\S]*class="chart"/);
}, 200_000);
