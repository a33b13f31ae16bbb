/**
 * The demo's story: what changed between two readings of the status view, one line per change
 * (capacity raised, a VM protected, VMs failed, deleted, parked in the warm buffer or woken from
 * it, protected VMs spared by a scale-in,
 * machines adopted, backed off, safety switch tripped or cleared, scaled, Active changed, woke
 * from zero in N ms), then a one-line summary of each pool
 * and target whose summary reads differently. Summaries use the very counts `drover status`
 * shows. Pure: two status views and `now` in, lines out.
 */
import type { Status } from '../src/status/status.js';
import type { PoolStatus } from '../src/status/pool-status.js';
import type { TargetStatus } from '../src/status/target-status.js';
import { shortId } from '../src/cli/render.js';
import { formatDuration } from '../src/status/format.js';
import { PARKED } from '../src/pool/warm-buffer.js';

/**
 * A pool in the words of its status counts: `workers: wanted 6, capacity 6, 4 healthy, 1 broken,
 * 1 creating, inventory 5` (wanted: when a target sizes it). Every count that is not 0 is named (healthy always), counts added
 * to status later included; a back-off says until when, so the line only changes when the pool does.
 */
export function poolSummary(p: PoolStatus): string {
  if (p.cache === null) return `${p.name}: not read yet`;
  const counts = Object.entries(p.counts).filter(([k, v]) => typeof v === 'number' && (v > 0 || k === 'healthy'));
  const wanted = p.wanted === undefined ? [] : [`wanted ${p.wanted}`];
  const parts = [...wanted, `capacity ${p.scaleSet.capacity ?? 'unknown'}`, ...counts.map(([k, v]) => `${v} ${k}`), `inventory ${p.machines.length}`];
  if (p.backoffUntil) parts.push(`creations backed off until ${p.backoffUntil.slice(11, 19)}Z`);
  if (p.safetySwitch) parts.push('SAFETY SWITCH tripped');
  return `${p.name}: ${parts.join(', ')}`;
}

/** A target's replicas each named: `web: ready 3, scale 3, desired 1, active`. */
export function targetSummary(t: TargetStatus): string {
  if (t.requestedScale === null) return `${t.name}: not reconciled yet`;
  const state = t.active === 'True' ? 'active' : t.active === 'False' ? 'inactive' : 'activating';
  const desired = t.desiredScale === null ? [] : [t.desiredScale < 0 ? 'desired unknown (no load sample yet)' : `desired ${t.desiredScale}`];
  const parts = [`ready ${t.actualScale ?? 'unknown'}`, `scale ${t.requestedScale}`, ...desired, `${state}${t.reason ? ` (${t.reason})` : ''}`];
  return `${t.name}: ${parts.join(', ')}`;
}

function poolChanges(before: PoolStatus | undefined, p: PoolStatus, now: number): string[] {
  const out: string[] = [];
  const was = before?.scaleSet.capacity ?? null;
  const is = p.scaleSet.capacity;
  // Drover never writes the capacity down: deleting VMs takes them out of it (ARM does).
  if (was !== null && is !== null && was !== is) out.push(is > was ? `capacity raised ${was} → ${is}` : `capacity ${was} → ${is}: the deleted VMs left it`);
  const old = new Map((before?.instances ?? []).map((i) => [i.id, i]));
  let scaledIn = false;
  for (const i of p.instances) {
    const prev = old.get(i.id);
    if (i.protected && !prev?.protected) out.push(`${shortId(i.id)} is protected from scale-in`);
    if (i.errorInfo && !prev?.errorInfo) out.push(`${shortId(i.id)} failed: ${i.errorInfo.errorClass} (${i.errorInfo.errorCode})`);
    if (i.state === 'Deleting' && prev && prev.state !== 'Deleting') {
      out.push(`deleting ${shortId(i.id)}`);
      // A healthy VM going is a scale-in (a broken one is fast delete's).
      scaledIn ||= i.errorInfo === null;
    }
  }
  const statusWas = new Map((before?.machines ?? []).map((m) => [m.providerId, m.providerStatus]));
  for (const m of p.machines) {
    const prev = statusWas.get(m.providerId);
    if (m.providerStatus === PARKED && prev !== undefined && prev !== PARKED) {
      out.push(`parked ${shortId(m.providerId)} in the warm buffer (deallocated, not deleted)`);
      scaledIn = true;
    }
    if (prev === PARKED && m.providerStatus !== PARKED) out.push(`waking ${shortId(m.providerId)} from the warm buffer (a start, not a creation)`);
  }
  const spared = scaledIn ? p.instances.filter((i) => i.protected && i.state !== 'Deleting') : [];
  if (spared.length) out.push(`spared ${spared.map((i) => shortId(i.id)).join(', ')}: protected from scale-in`);
  const now_ = new Set(p.instances.map((i) => i.id));
  for (const id of old.keys()) if (!now_.has(id)) out.push(`deleted ${shortId(id)}`);
  const owned = new Set((before?.machines ?? []).map((m) => m.providerId));
  const adopted = before ? p.machines.filter((m) => !owned.has(m.providerId)) : [];
  if (adopted.length) out.push(`adopted ${adopted.map((m) => shortId(m.providerId)).join(', ')} into the inventory`);
  if (p.backoffUntil && !before?.backoffUntil) out.push(`backed off: no new capacity for ${formatDuration(Date.parse(p.backoffUntil) - now)}`);
  if (!p.backoffUntil && before?.backoffUntil) out.push('back-off over');
  if (p.safetySwitch && !before?.safetySwitch) {
    const sides = [
      ...p.safetySwitch.providerOnly.map((id) => `${shortId(id)} in the scale set only`),
      ...p.safetySwitch.inventoryOnly.map((id) => `${shortId(id)} in the inventory only`),
    ];
    out.push(`SAFETY SWITCH tripped: ${sides.join(', ')}`);
  }
  if (!p.safetySwitch && before?.safetySwitch) out.push('safety switch cleared');
  return out;
}

function targetChanges(before: TargetStatus | undefined, t: TargetStatus): string[] {
  const out: string[] = [];
  const was = before?.requestedScale ?? null;
  if (was !== null && t.requestedScale !== null && was !== t.requestedScale) out.push(`scaled ${was} → ${t.requestedScale}`);
  if (before && before.active !== t.active) {
    out.push(t.active === 'True' ? 'active' : t.active === 'False' ? `inactive${t.reason ? ` (${t.reason})` : ''}` : 'activating');
  }
  // Ready replicas reaching the scale asked for is the end of a change: told once, when it happens.
  if (before?.actualScale != null && t.actualScale !== null && t.actualScale > 0 && t.actualScale === t.requestedScale && before.actualScale !== t.actualScale) {
    out.push(`all ${t.actualScale} replica(s) ready`);
  }
  if (t.lastActivation && t.lastActivation.at !== before?.lastActivation?.at) out.push(`woke from zero in ${t.lastActivation.latencyMs} ms`);
  if (t.lastError && t.lastError !== before?.lastError) out.push(`error: ${t.lastError}`);
  return out;
}

/**
 * Lines for what changed from `before` to `after`: `name: what` per change, then the object's
 * summary whenever it reads differently from the one before (also when no change line came
 * with it, such as ready replicas catching up), so the last summary always says how things are.
 * With no `before` (the first reading), the summaries alone.
 */
export function storyLines(before: Status | undefined, after: Status, now: number): string[] {
  const out: string[] = [];
  for (const p of after.pools) {
    const prev = before?.pools.find((x) => x.name === p.name);
    told(out, p.name, poolChanges(prev, p, now), prev && poolSummary(prev), poolSummary(p), before === undefined);
  }
  for (const t of after.targets) {
    const prev = before?.targets.find((x) => x.name === t.name);
    told(out, t.name, targetChanges(prev, t), prev && targetSummary(prev), targetSummary(t), before === undefined);
  }
  return out;
}

function told(out: string[], name: string, changes: string[], was: string | undefined, is: string, first: boolean): void {
  for (const c of changes) out.push(`${name}: ${c}`);
  if (first || changes.length > 0 || was !== is) out.push(`  = ${is}`);
}
