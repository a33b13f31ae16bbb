/**
 * uPlot's browser build and stylesheet, read from disk to be inlined into the status page: from
 * `assets/uplot/` next to the bundle in a deployed package (scripts/build.mjs copies them
 * there; it has no node_modules), else from the installed `uplot` package.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface UplotAssets {
  js: string;
  css: string;
}

const JS = 'uPlot.iife.min.js';
const CSS = 'uPlot.min.css';

function candidateDirs(): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dirs = [path.join(here, 'assets', 'uplot'), path.join(here, '..', 'assets', 'uplot')];
  try {
    dirs.push(path.join(path.dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist'));
  } catch {
    // Not installed (a deployed package): the copies next to the bundle are the only ones.
  }
  return dirs;
}

async function load(): Promise<UplotAssets | undefined> {
  for (const dir of candidateDirs()) {
    try {
      const [js, css] = await Promise.all([readFile(path.join(dir, JS), 'utf8'), readFile(path.join(dir, CSS), 'utf8')]);
      return { js, css };
    } catch {
      // Try the next place.
    }
  }
  return undefined;
}

// The files never change while the process runs: read them once.
let loaded: Promise<UplotAssets | undefined> | undefined;

/** uPlot's files, or undefined when none are found (the page then says its timelines are unavailable). */
export function uplotAssets(): Promise<UplotAssets | undefined> {
  loaded ??= load();
  return loaded;
}
