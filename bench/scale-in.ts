/**
 * A scale-in of a sized pool, 1,000 → 100 VMs, on Azurite and the ARM simulator: how many
 * `deleteInstances` calls it makes (⌈900 / chunkSize⌉) and how many inventory transactions
 * (⌈900 / 100⌉ to mark the victims, then as many to retire their rows once ARM no longer lists
 * them). Kept apart from bench/pool.ts, whose figures are about warm passes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config/load.js';
import { silentLog } from '../src/log.js';
import { reconcileObject } from '../src/reconcile/object.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { writeWanted } from '../src/pool/wanted.js';
import { startAzurite } from '../sim/azurite.js';
import { startArmSim } from '../sim/arm/index.js';
import type { Benchmark, Figure } from './index.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000005ca1e1';
const FROM = 1_000;
const TO = 100;
const CHUNK = 50;

async function run(): Promise<Figure[]> {
  const azurite = await startAzurite({ timeoutMs: 60_000 });
  const sim = await startArmSim({ subscriptionId: SUBSCRIPTION, provisionDelayMs: 10, deleteDelayMs: 10, pageSize: 1000 });
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-bench-scale-in-'));
  try {
    const caFile = path.join(dir, 'ca.pem');
    writeFileSync(caFile, sim.caPem);
    sim.addScaleSet({ resourceGroup: 'rg-bench', name: 'big', capacity: FROM });
    const config = parseConfig({
      storage: { connection: azurite.connectionString, prefix: 'bscalein' },
      azure: { subscriptionId: SUBSCRIPTION, credential: 'dev', resourceManagerEndpoint: sim.url, caFile },
      pools: [{ name: 'big', scaleSet: { resourceGroup: 'rg-bench', name: 'big' }, maxCount: FROM, chunkSize: CHUNK, reconcileRate: '0s,1', deletionRate: '0s,1', instanceCache: { ttl: '0s' } }],
    });
    const rt = await createRuntime({ config, env: {} });
    await rt.storage.ensure();
    let batches = 0;
    rt.storage.table('machines').pipeline.addPolicy({
      name: 'bench-count-batches',
      sendRequest(request, next) {
        if (request.url.includes('$batch')) batches++;
        return next(request);
      },
    });
    const pass = () => reconcileObject(rt, { kind: 'pool', name: 'big' }, { reason: 'bench' }, { log: silentLog });
    await pass();
    await writeWanted(rt.table('machines'), 'big', TO, 'bench', Date.now());
    const deletes = sim.counts.deleteInstances;
    const marked = batches;
    const started = Date.now();
    await pass();
    const markBatches = batches - marked;
    const calls = sim.counts.deleteInstances - deletes;
    const ms = Date.now() - started;
    await new Promise((r) => setTimeout(r, 100));
    const retiring = batches;
    await pass();
    return [
      { label: `deleteInstances calls, ${FROM} → ${TO} (chunk ${CHUNK}; expected ⌈${FROM - TO}/${CHUNK}⌉ = ${Math.ceil((FROM - TO) / CHUNK)})`, value: calls, unit: 'calls' },
      { label: `inventory transactions marking the victims (expected ⌈${FROM - TO}/100⌉ = ${Math.ceil((FROM - TO) / 100)})`, value: markBatches, unit: 'transactions' },
      { label: 'inventory transactions retiring their rows', value: batches - retiring, unit: 'transactions' },
      { label: 'the scale-in pass', value: ms, unit: 'ms' },
      { label: 'VMs left', value: sim.scaleSet('rg-bench', 'big').vms().length, unit: 'VMs' },
    ];
  } finally {
    await sim.close();
    await azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const benchmark: Benchmark = { name: 'scale-in', description: 'a sized pool scaled in from 1,000 to 100 VMs (ARM simulator, Azurite)', run };
export default benchmark;
