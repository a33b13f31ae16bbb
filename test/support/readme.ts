/** The README read as the tests check it: its sections by heading and their fenced blocks. */
import { readFileSync } from 'node:fs';

export const README_URL = new URL('../../README.md', import.meta.url);

export const readme = () => readFileSync(README_URL, 'utf8');

/** The README's text under a heading, up to the next heading of the same or a higher level. */
export function section(heading: string, text = readme()): string {
  const lines = text.split('\n');
  const level = (line: string) => /^#+ /.exec(line)?.[0].length ?? Infinity;
  const start = lines.findIndex((l) => l.replace(/^#+ /, '') === heading && level(l) !== Infinity);
  if (start < 0) throw new Error(`no heading "${heading}" in README.md`);
  const end = lines.findIndex((l, i) => i > start && level(l) <= level(lines[start]!));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

export const fencedBlocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

/** The commands of `sh` blocks, one a line, without their trailing comments. */
export const shellCommands = (text: string) =>
  fencedBlocks(text, 'sh')
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '');
