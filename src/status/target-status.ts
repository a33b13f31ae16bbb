import type { TargetConfig } from '../config/schema.js';
import type { Runtime } from '../runtime/runtime.js';

export interface TargetStatus {
  name: string;
  desiredScale: number | null;
  actualScale: number | null;
  active: 'True' | 'False' | 'Unknown';
  activeSince: string | null;
  reason: string | null;
}

export async function targetStatus(_rt: Runtime, target: TargetConfig): Promise<TargetStatus> {
  return { name: target.name, desiredScale: null, actualScale: null, active: 'Unknown', activeSince: null, reason: null };
}
