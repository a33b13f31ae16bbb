/** A recording checked: each exchange by check.ts, then the coverage of Drover's calls. */
import type { RecordedExchange } from '../recorder.js';
import { checkExchange, type Violation } from './check.js';
import { isDeliberate } from './deliberate.js';
import { coverageGaps, droverCalls } from './coverage.js';
import { loadSpecs, type LoadedSpecs } from './load.js';

export interface CheckReport {
  ok: boolean;
  violations: Violation[];
  uncovered: string[];
  lines: string[];
}

export function checkExchanges(specs: LoadedSpecs, exchanges: readonly RecordedExchange[]): { violations: Violation[]; operations: Set<string> } {
  const violations: Violation[] = [];
  const operations = new Set<string>();
  const seen = new Set<string>();
  for (const exchange of exchanges) {
    const service = exchange.service === 'arm' ? specs.arm : exchange.service === 'kubernetes' ? specs.kubernetes : undefined;
    // Services with no specification here (metrics.k8s.io, Service Bus, …) are recorded, not checked.
    if (!service || isDeliberate(exchange)) continue;
    const result = checkExchange(service, specs.schemas, exchange);
    if (result.operation) operations.add(result.operation);
    // One line per operation and rule: the first call that broke it stands for the others.
    for (const v of result.violations) {
      const key = `${result.operation ?? v.call}\n${v.rule}`;
      if (!seen.has(key)) violations.push(v);
      seen.add(key);
    }
  }
  return { violations, operations };
}

export function checkRecording(specsDir: string, kubernetesSwagger: string, exchanges: readonly RecordedExchange[]): CheckReport {
  const specs = loadSpecs(specsDir, kubernetesSwagger);
  const { violations, operations } = checkExchanges(specs, exchanges);
  const uncovered = coverageGaps(droverCalls(), operations);
  const deliberate = exchanges.filter(isDeliberate).length;
  const lines = [
    ...violations.map((v) => `violation: ${v.call}: ${v.rule}`),
    ...uncovered.map((u) => `not covered: ${u}`),
    `${exchanges.length} exchanges (${deliberate} deliberately off the specifications, not checked), ${operations.size} operations, ${violations.length} violations, ${uncovered.length} calls not covered`,
  ];
  return { ok: violations.length === 0 && uncovered.length === 0 && exchanges.length > 0, violations, uncovered, lines };
}
