/**
 * Summarises a .cpuprofile: self time by function and by package or source folder, the largest
 * first. `node dist/bench/profile-summary.js FILE [TOP]`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `@azure/core-rest-pipeline`, `node:internal/http`, `src/cache`: where a frame's code lives. */
export function placeOf(url: string): string {
  if (!url) return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const own = /\/dist\/((?:src|bench|sim)\/[^/]+)/.exec(url);
  return own ? own[1]! : url;
}

export function summarise(profile: Profile): { total: number; byFunction: Map<string, number>; byPlace: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += us;
    const fn = `${functionName || '(anonymous)'} ${placeOf(url)}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byPlace.set(placeOf(url), (byPlace.get(placeOf(url)) ?? 0) + us);
  }
  return { total, byFunction, byPlace };
}

function top(map: Map<string, number>, total: number, n: number): string[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}

if (process.argv[1]?.endsWith('profile-summary.js')) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node dist/bench/profile-summary.js FILE [TOP]');
  const n = Number(process.argv[3] ?? 25);
  const { total, byFunction, byPlace } = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  console.log(`busy ${(total / 1000).toFixed(1)} ms\n\nby place:\n${top(byPlace, total, n).join('\n')}\n\nby function:\n${top(byFunction, total, n).join('\n')}`);
}
