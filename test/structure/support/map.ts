/**
 * The map of src/ that docs/architecture.md opens with: one line a folder, `- \`src/…/\` — what
 * it holds`, in layer order (support/layers.ts). Read from the document's first section.
 */
import { LAYERS, type Layer } from './layers.js';

const ENTRY = /^- `(src\/[\w/-]+\/)`/;

/** The document's first `## ` section: its heading and the folders it lists, in order. */
export function readMap(markdown: string): { heading: string; folders: string[] } {
  const sections = markdown.split(/^## /m).slice(1);
  const first = sections[0] ?? '';
  const [heading = '', ...lines] = first.split('\n');
  return { heading, folders: lines.flatMap((line) => ENTRY.exec(line)?.[1] ?? []) };
}

const layerOf = (folder: string, layers: readonly Layer[]) => {
  let best: { rank: number; length: number } | undefined;
  layers.forEach(({ paths }, rank) => {
    for (const p of paths) if (p.endsWith('/') && folder.startsWith(p) && (!best || p.length > best.length)) best = { rank, length: p.length };
  });
  return best?.rank;
};

/** What is wrong with a map against the folders there are: one missing, one named that is not there, one named twice, one out of layer order. */
export function mapProblems(listed: readonly string[], folders: readonly string[], layers: readonly Layer[] = LAYERS): string[] {
  const problems = [
    ...folders.filter((f) => !listed.includes(f)).map((f) => `${f} is not on the map`),
    ...listed.filter((f) => !folders.includes(f)).map((f) => `the map names ${f}, which is not a folder of src/`),
    ...listed.filter((f, i) => listed.indexOf(f) !== i).map((f) => `the map names ${f} twice`),
  ];
  let highest = 0;
  for (const folder of listed) {
    const rank = layerOf(folder, layers);
    if (rank === undefined) continue;
    if (rank < highest) problems.push(`${folder} is listed below a lower layer (${layers[highest]!.name}) than its own (${layers[rank]!.name})`);
    highest = Math.max(highest, rank);
  }
  return problems;
}
