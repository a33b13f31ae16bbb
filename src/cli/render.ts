/** Human-readable renderings of a pass report and of the status view. */
import type { PassReport } from '../reconcile/pass.js';
import { objectKey } from '../job/context.js';
import type { Status } from '../status/status.js';
import type { PoolStatus } from '../status/pool-status.js';
import { heldByMinAgeText, terminateNotificationText } from '../status/pool-notes.js';
import { policyLine } from '../status/policy-status.js';
import type { TargetStatus } from '../status/target-status.js';
import { clockTime, formatDuration, relative } from '../status/format.js';
import { shortId } from '../cache/ids.js';

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

/** The pass report as `reconcile --json` prints it: times in ISO, as in every JSON Drover prints. */
export function passReportJson(report: PassReport) {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    startedAt: iso(report.startedAt),
    finishedAt: iso(report.finishedAt),
    durationMs: report.finishedAt - report.startedAt,
    outcomes: report.outcomes.map((o) => (o.status === 'busy' ? { ...o, until: iso(o.until) } : o)),
    deferred: report.deferred,
    enqueued: report.enqueued,
    errors: report.errors,
  };
}

export { shortId } from '../cache/ids.js';

/** One line per pool: `workers: 5/6 running, backed off 4m12s more, cache 38s old`. */
export function poolLine(p: PoolStatus, now: number): string {
  const running = p.instances.filter((i) => i.state === 'Running').length;
  const parts = [`${running}/${p.scaleSet.capacity ?? '?'} running`];
  for (const state of ['Creating', 'Deleting', 'Stopped'] as const) {
    const n = p.instances.filter((i) => i.state === state).length;
    if (n) parts.push(`${n} ${state.toLowerCase()}`);
  }
  const failed = p.instances.filter((i) => i.errorInfo !== null).length;
  if (failed) parts.push(`${failed} failed`);
  if (p.backoffUntil) parts.push(`backed off ${formatDuration(Date.parse(p.backoffUntil) - now)} more`);
  parts.push(p.cache?.lastRefresh ? `cache ${formatDuration(now - Date.parse(p.cache.lastRefresh))} old` : 'cache not filled yet');
  if (p.safetySwitch) parts.push(`SAFETY SWITCH tripped ${relative(p.safetySwitch.since, now)}`);
  if (p.hold) parts.push(`HELD ${relative(p.hold.since, now)}${p.hold.setting ? ` by autoscale setting ${JSON.stringify(p.hold.setting)}` : ''}`);
  if (p.leftAlone) parts.push(`${p.leftAlone}: not touched by this host`);
  return `${p.name}: ${parts.join(', ')}`;
}

/** One line per target: `web: 3/3 ready (desired 3), active since 2m ago`. */
export function targetLine(t: TargetStatus, now: number): string {
  const desired = t.desiredScale === -1 ? 'no load sample yet' : `desired ${t.desiredScale ?? '?'}`;
  const state = t.active === 'True' ? 'active' : t.active === 'False' ? 'inactive' : 'activating';
  const parts = [`${t.actualScale ?? '?'}/${t.requestedScale ?? '?'} ready (${desired})`, `${state}${t.reason ? ` (${t.reason})` : ''}${t.activeSince ? ` since ${relative(t.activeSince, now)}` : ''}`];
  if (t.wakingSince) parts.push(`waking for ${formatDuration(now - Date.parse(t.wakingSince))}`);
  if (t.lastError) parts.push(`error: ${t.lastError}`);
  for (const s of t.sources) if (s.error) parts.push(`source ${s.name} (${s.kind}) failing: ${s.error}`);
  if (t.leftAlone) parts.push(`${t.leftAlone}: not touched by this host`);
  return `${t.name}: ${parts.join(', ')}`;
}

/** The pool's notes (src/status/pool-notes.ts), a line each. */
function poolNoteLines(p: PoolStatus, at: (iso: string) => string): string[] {
  const lines: string[] = [];
  if (p.hold) lines.push(`  HELD since ${at(p.hold.since)}: ${p.hold.reason}; nothing is written to the scale set`);
  for (const warning of p.warnings) lines.push(`  warning: ${warning}`);
  if (p.keptAboveWanted) lines.push(`  scale-in: ${p.keptAboveWanted}`);
  if (p.heldByMinAge > 0) lines.push(`  ${heldByMinAgeText(p.heldByMinAge)}`);
  if (p.terminateNotification) lines.push(`  ${terminateNotificationText(p.terminateNotification)}`);
  return lines;
}

/** The status view for people: a line per pool and target first, then the details, times relative to `now`. */
export function renderStatus(s: Status, now: number): string {
  const at = (iso: string) => `${clockTime(iso, now)} (${relative(iso, now)})`;
  const out: string[] = [];
  out.push(`POOLS (${s.pools.length})`);
  for (const p of s.pools) out.push(`  ${poolLine(p, now)}`);
  out.push(`TARGETS (${s.targets.length})`);
  for (const t of s.targets) out.push(`  ${targetLine(t, now)}`);
  for (const p of s.pools) {
    const ss = p.scaleSet;
    out.push('', `POOL ${p.name}: scale set ${ss.resourceGroup}/${ss.name} (${ss.orchestrationMode ?? 'mode unknown'}, capacity ${ss.capacity ?? '?'})`);
    const c = p.cache;
    out.push(`  cache: ${c ? `${c.size} VM(s), refreshed ${c.lastRefresh ? relative(c.lastRefresh, now) : 'never'}${c.nextRefresh ? `, next refresh ${relative(c.nextRefresh, now)}` : ''}${c.lastError ? `, last error: ${c.lastError}` : ''}` : 'not built yet'}`);
    for (const i of p.instances) {
      const err = i.errorInfo ? ` [${i.errorInfo.errorClass} ${i.errorInfo.errorCode}: ${i.errorInfo.errorMessage}]` : '';
      out.push(`    ${(i.state ?? 'Unknown').padEnd(9)} ${shortId(i.id)}${err}`);
    }
    const n = p.counts;
    out.push(`  VMs: ${n.healthy} healthy, ${n.broken} broken, ${n.creating} creating, ${n.warm} warm (parked), ${n.stopped} stopped, ${n.deleting} deleting, ${n.unmanaged} unmanaged, ${n.missing} missing`);
    out.push(`  inventory: ${p.machines.length} machine(s)`);
    for (const m of p.machines) out.push(`    ${(m.providerStatus ?? '-').padEnd(9)} ${shortId(m.providerId)}${m.address ? ` ${m.address}` : ''}`);
    if (p.backoffUntil) out.push(`  creations backed off until ${at(p.backoffUntil)} after failed provisioning`);
    out.push(...poolNoteLines(p, at));
    if (p.safetySwitch) {
      out.push(`  SAFETY SWITCH since ${at(p.safetySwitch.since)}: nothing is written to ARM or the inventory until the views agree`);
      for (const id of p.safetySwitch.providerOnly) out.push(`    in the scale set only: ${shortId(id)}`);
      for (const id of p.safetySwitch.inventoryOnly) out.push(`    in the inventory only: ${shortId(id)}  (drover machines forget --pool ${p.name} ${id})`);
    }
  }
  for (const t of s.targets) {
    const details: string[] = [];
    if (t.activatorSeenSince) details.push(`  activator in front since ${at(t.activatorSeenSince)}`);
    if (t.wakingSince) details.push(`  waking from zero since ${at(t.wakingSince)}`);
    if (t.lastActivation) details.push(`  last wake from zero took ${(t.lastActivation.latencyMs / 1000).toFixed(1)} s (ready ${relative(t.lastActivation.at, now)})`);
    if (t.panicSince) details.push(`  panic mode since ${at(t.panicSince)}`);
    if (t.boundBy) details.push(`  bound by ${t.boundBy}`);
    const policy = t.policy && policyLine(t.policy);
    if (policy) details.push(`  ${policy}`);
    for (const src of t.sources ?? []) if (src.at !== null) details.push(`  ${src.name} (push): ${src.value} pushed ${relative(src.at, now)}, ${src.served ? 'served' : 'waiting for a reconcile'}`);
    if (t.paused) details.push(`  paused (${t.paused.mode}${t.paused.replicas !== null ? `, pinned at ${t.paused.replicas}` : ''}) by ${t.paused.by}`);
    if (details.length) out.push('', `TARGET ${t.name}`, ...details);
  }
  if (s.probes.length) {
    out.push('', 'PROBES');
    for (const p of s.probes) out.push(`  ${p.target}: ${p.inFlight ? 'in flight' : 'idle'}, ${p.attempts} attempt(s), last ${p.lastResult ?? '-'}${p.startedAt ? `, started ${relative(p.startedAt, now)}` : ''}`);
  }
  out.push('', `RECENT DECISIONS (${s.decisions.length})`);
  for (const d of s.decisions) out.push(`  ${at(d.at)} ${d.object}: ${d.decision} — ${d.reason}${d.error ? ` [error: ${d.error}]` : ''}`);
  return `${out.join('\n')}\n`;
}
