/** Human-readable renderings of a pass report and of the status view. */
import type { PassReport } from '../reconcile/pass.js';
import { objectKey } from '../reconcile/types.js';
import type { Status } from '../status/status.js';

export function renderPass(report: PassReport): string {
  const lines = report.outcomes.map((o) => {
    const key = objectKey(o.ref).padEnd(28);
    switch (o.status) {
      case 'done':
        return `${key} ${o.decision.decision}: ${o.decision.reason}`;
      case 'busy':
        return `${key} skipped: held by ${o.heldBy} until ${new Date(o.until).toISOString()}`;
      case 'claimed':
        return `${key} skipped: ${o.by} took it for this timer period`;
      case 'unknown':
        return `${key} not in the configuration`;
      case 'failed':
        return `${key} FAILED: ${o.error}`;
      case 'aborted':
        return `${key} ABORTED: ${o.reason}`;
    }
  });
  const enqueued = new Set(report.enqueued.map(objectKey));
  for (const ref of report.deferred) lines.push(`${objectKey(ref).padEnd(28)} not started${enqueued.has(objectKey(ref)) ? ', handed to the reconcile queue' : ''}`);
  lines.push(`${report.outcomes.length} reconciled, ${report.deferred.length} deferred, ${report.errors} failed in ${report.finishedAt - report.startedAt} ms`);
  return `${lines.join('\n')}\n`;
}

export function renderStatus(s: Status): string {
  const out: string[] = [];
  out.push(`POOLS (${s.pools.length})`);
  for (const p of s.pools) {
    const ss = p.scaleSet;
    out.push(`  ${p.name}: scale set ${ss.resourceGroup}/${ss.name} (${ss.orchestrationMode ?? 'mode unknown'}, capacity ${ss.capacity ?? '?'})`);
    out.push(`    cache: ${p.cache ? `${p.cache.size} instance(s), refreshed ${p.cache.lastRefresh ?? 'never'}` : 'not built yet'}`);
    for (const i of p.instances) {
      const err = i.errorInfo ? ` [${i.errorInfo.errorClass} ${i.errorInfo.errorCode}: ${i.errorInfo.errorMessage}]` : '';
      out.push(`      ${i.state ?? 'Unknown'} ${i.powerState ?? ''} ${i.id}${err}`);
    }
    const c = p.counts;
    out.push(`    VMs: ${c.healthy} healthy, ${c.broken} broken, ${c.creating} creating, ${c.stopped} stopped, ${c.deleting} deleting, ${c.unmanaged} unmanaged, ${c.missing} missing`);
    out.push(`    inventory: ${p.machines.length} machine(s)`);
    for (const m of p.machines) out.push(`      ${m.providerStatus ?? '-'} ${m.providerId}${m.address ? ` ${m.address}` : ''}`);
    if (p.safetySwitch) {
      out.push(`    SAFETY SWITCH since ${p.safetySwitch.since}: nothing is written to ARM or the inventory until the views agree`);
      for (const id of p.safetySwitch.providerOnly) out.push(`      in the scale set only: ${id}`);
      for (const id of p.safetySwitch.inventoryOnly) out.push(`      in the inventory only: ${id}  (drover machines forget --pool ${p.name} ${id})`);
    }
  }
  out.push(`TARGETS (${s.targets.length})`);
  for (const t of s.targets) {
    out.push(`  ${t.name}: desired ${t.desiredScale ?? '?'}, actual ${t.actualScale ?? '?'} (requested ${t.requestedScale ?? '?'}), active ${t.active}${t.reason ? ` (${t.reason})` : ''}${t.activeSince ? ` since ${t.activeSince}` : ''}`);
    if (t.activatorSeenSince) out.push(`    activator in front since ${t.activatorSeenSince}`);
    if (t.wakingSince) out.push(`    waking from zero since ${t.wakingSince}`);
    if (t.lastActivation) out.push(`    last wake from zero took ${(t.lastActivation.latencyMs / 1000).toFixed(1)} s (ready at ${t.lastActivation.at})`);
    if (t.panicSince) out.push(`    panic mode since ${t.panicSince}`);
    if (t.lastError) out.push(`    last error: ${t.lastError}`);
  }
  if (s.probes.length) {
    out.push('PROBES');
    for (const p of s.probes) out.push(`  ${p.target}: ${p.inFlight ? 'in flight' : 'idle'}, ${p.attempts} attempt(s), last ${p.lastResult ?? '-'}, started ${p.startedAt ?? '-'}`);
  }
  out.push(`RECENT DECISIONS (${s.decisions.length})`);
  for (const d of s.decisions) out.push(`  ${d.at} ${d.object}: ${d.decision} — ${d.reason}${d.error ? ` [error: ${d.error}]` : ''}`);
  return `${out.join('\n')}\n`;
}
