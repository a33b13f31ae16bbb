/**
 * The ARM simulator in a process of its own, so a benchmark's CPU figures count only the
 * client side. Driven over IPC: `{ addScaleSet }` adds one; the reply carries the URL and CA.
 */
import { startArmSim, type SimScaleSetSpec } from '../sim/arm/index.js';

const sim = await startArmSim({ subscriptionId: process.argv[2], pageSize: 1000 });
process.on('message', (msg: { addScaleSet?: SimScaleSetSpec; counts?: true; close?: true }) => {
  if (msg.addScaleSet) sim.addScaleSet(msg.addScaleSet);
  if (msg.close) void sim.close().then(() => process.exit(0));
  process.send?.({ counts: { ...sim.counts } });
});
process.send?.({ url: sim.url, caPem: sim.caPem });
