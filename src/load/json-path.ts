/**
 * The small path language of an http load source's `jsonPath`: property names separated by
 * dots, array indexes in brackets, an optional leading `$` (`$.metrics.inflight`,
 * `queues[0].depth`). Enough to point into a metrics document, nothing to evaluate.
 */

export class JsonPathError extends Error {
  constructor(readonly path: string, detail: string) {
    super(`jsonPath ${JSON.stringify(path)}: ${detail}`);
    this.name = 'JsonPathError';
  }
}

export const isJsonPathError = (e: unknown): e is JsonPathError => e instanceof JsonPathError;

type Step = string | number;

export function parseJsonPath(path: string): Step[] {
  const steps: Step[] = [];
  const text = path.startsWith('$') ? path.slice(1) : path;
  const token = /\.?([^.[\]]+)|\[(\d+)\]/y;
  let pos = 0;
  while (pos < text.length) {
    token.lastIndex = pos;
    const match = token.exec(text);
    if (!match) throw new JsonPathError(path, `unexpected ${JSON.stringify(text[pos])} at position ${pos + path.length - text.length}`);
    steps.push(match[2] !== undefined ? Number(match[2]) : match[1]!);
    pos = token.lastIndex;
  }
  if (steps.length === 0) throw new JsonPathError(path, 'names no property');
  return steps;
}

/** The value at `path`, or a JsonPathError naming the step that is missing. */
export function valueAtPath(document: unknown, path: string): unknown {
  let current = document;
  for (const step of parseJsonPath(path)) {
    const next =
      typeof step === 'number'
        ? Array.isArray(current) ? (current[step] as unknown) : undefined
        : current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>)[step] : undefined;
    if (next === undefined) throw new JsonPathError(path, `no ${typeof step === 'number' ? `[${step}]` : `"${step}"`} in the answer`);
    current = next;
  }
  return current;
}
