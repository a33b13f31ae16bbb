/**
 * The autoscale settings of each resource group, read at most once per the pool's instance
 * cache ttl (and at most every 30 s) by this process: the passes in between use the read, and passes that ask
 * while a read is under way share it. So the autoscale hold costs one ARM GET per resource group
 * and ttl, not one per pass. Built once per process by the composition root (each Functions
 * instance reads for itself; the count stays one per instance and ttl).
 *
 * A failed read is tried again after at most a minute; meanwhile the last good read serves, and
 * without one the read is reported failed (the hold then holds: autoscale-hold.ts).
 */
import type { AutoscaleSettingRecord, AutoscaleSettingsApi } from '../azure/autoscale-settings.js';
import type { Clock } from '../clock.js';
import { errorMessage } from '../log.js';
import { AbortedError } from '../deadline.js';
import type { AutoscaleRead } from './autoscale-hold.js';

const FAILED_READ_RETRY_MS = 60_000;
/**
 * However short the pool's cache ttl (tests use 0), the settings are read at most every 30 s:
 * an operator's change to an autoscale setting needs no faster answer, and a pass a few seconds
 * apart should not pay an ARM round trip each.
 */
export const MIN_READ_PERIOD_MS = 30_000;

interface Entry {
  /** The last good read. */
  good?: { settings: readonly AutoscaleSettingRecord[]; at: number };
  /** The last failed read, when it came after the last good one. */
  failed?: { error: string; at: number };
  pending?: Promise<void>;
}

export class AutoscaleWatch {
  private readonly groups = new Map<string, Entry>();

  constructor(
    private readonly api: () => Promise<AutoscaleSettingsApi>,
    private readonly clock: Clock,
  ) {}

  async settings(resourceGroup: string, ttlMs: number, signal?: AbortSignal): Promise<AutoscaleRead> {
    const maxAgeMs = Math.max(ttlMs, MIN_READ_PERIOD_MS);
    const key = resourceGroup.toLowerCase();
    const entry = this.groups.get(key) ?? {};
    this.groups.set(key, entry);
    if (this.due(entry, maxAgeMs)) {
      entry.pending ??= this.read(entry, resourceGroup, signal).finally(() => (entry.pending = undefined));
      await entry.pending;
    }
    if (entry.good) return { ok: true, settings: entry.good.settings };
    return { ok: false, error: entry.failed?.error ?? 'not read yet' };
  }

  private due(entry: Entry, maxAgeMs: number): boolean {
    const now = this.clock.now();
    if (entry.failed) return now - entry.failed.at >= Math.min(maxAgeMs, FAILED_READ_RETRY_MS);
    return !entry.good || now - entry.good.at >= maxAgeMs;
  }

  private async read(entry: Entry, resourceGroup: string, signal: AbortSignal | undefined): Promise<void> {
    try {
      const settings = await (await this.api()).listAutoscaleSettings(resourceGroup, { abortSignal: signal });
      entry.good = { settings, at: this.clock.now() };
      entry.failed = undefined;
    } catch (err) {
      // A pass cut short says nothing about the settings: the next pass reads again.
      if (err instanceof AbortedError || signal?.aborted) return;
      entry.failed = { error: errorMessage(err), at: this.clock.now() };
    }
  }
}
