// Issue 13: messages as users send them. `az storage message put` sends the text as is; Drover
// sends base64. The local host, with the project's own host.json, serves both and drops what
// neither decodes, naming the queue and the message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startLocalHost, type LocalHost } from '../../src/host/local-host.js';
import { encodeMessage } from '../../src/queue/messages.js';
import { startWorld, type World } from '../support/world.js';

let world: World;
let rt: Runtime;
let host: LocalHost;
const lines: string[] = [];

beforeAll(async () => {
  world = await startWorld();
  for (const name of ['raw', 'encoded']) world.arm.sim.addScaleSet({ resourceGroup: 'rg', name, capacity: 1 });
  const file = world.configFile({
    pools: ['raw', 'encoded'].map((name) => ({ name, scaleSet: { resourceGroup: 'rg', name }, maxCount: 1, creationRate: '0s,1', reconcileRate: '0s,1' })),
  });
  rt = await createRuntime({ configFile: file });
  const log = { info: (...a: unknown[]) => lines.push(a.join(' ')), warn: (...a: unknown[]) => lines.push(a.join(' ')), error: (...a: unknown[]) => lines.push(a.join(' ')) };
  // The project's host.json, and a timer that does not fire during the test.
  host = await startLocalHost({ rt, log, schedule: '0 0 0 1 1 *' });
});
afterAll(async () => {
  await host.stop();
  await world.close();
});

const decidedFor = async (object: string) => (await rt.decisions.recent(Date.now(), 50)).filter((d) => d.object === object);

async function until(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe('queue messages as users send them', () => {
  it('serves raw JSON and base64 JSON alike, leaving nothing on the queue or its poison queue', async () => {
    expect(host.settings.messageEncoding).toBe('none');
    const queue = rt.storage.queue('reconcile');
    await queue.sendMessage('{"kind":"pool","name":"raw","reason":"az storage message put"}');
    await queue.sendMessage(encodeMessage({ kind: 'pool', name: 'encoded', reason: 'drover enqueue' }));
    const served = await until(async () => (await decidedFor('pool/raw')).length > 0 && (await decidedFor('pool/encoded')).length > 0);
    expect(served, lines.join('\n')).toBe(true);
    expect(await until(async () => (await queue.peekMessages()).peekedMessageItems.length === 0)).toBe(true);
    expect((await rt.storage.poisonQueue('reconcile').peekMessages()).peekedMessageItems).toHaveLength(0);
  });

  it('drops an undecodable message at once with a line naming the queue and the message id', async () => {
    const queue = rt.storage.queue('reconcile');
    const sent = await queue.sendMessage('kind=pool name=raw');
    const dropped = () => lines.find((l) => l.includes('dropping malformed message'));
    expect(await until(() => dropped() !== undefined)).toBe(true);
    expect(dropped()).toContain(sent.messageId);
    expect(dropped()).toContain(rt.storage.names.queues.reconcile);
    expect(await until(async () => (await queue.peekMessages()).peekedMessageItems.length === 0)).toBe(true);
    expect((await rt.storage.poisonQueue('reconcile').peekMessages()).peekedMessageItems).toHaveLength(0);
  });
});
