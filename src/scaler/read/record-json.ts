/** A target record field that holds JSON; one that does not read back reads as nothing kept (a first sight). */
export function readJson<T>(text: string | undefined, fallback: T, valid: (v: unknown) => boolean): T {
  if (!text) return fallback;
  try {
    const v: unknown = JSON.parse(text);
    return valid(v) ? (v as T) : fallback;
  } catch {
    return fallback;
  }
}

/**
 * `read`, remembered for the last `kept` texts: a target reconciled every few seconds reads back
 * the field it wrote, and parses it once. Only a memo of a pure reading, keyed by the text
 * itself: what a policy keeps lives in the row, never here.
 */
export function parsedOnce<T>(kept: number, read: (text: string) => T): (text: string) => T {
  const memo = new Map<string, T>();
  return (text) => {
    if (memo.has(text)) return memo.get(text)!;
    const value = read(text);
    if (memo.size >= kept) memo.delete(memo.keys().next().value!);
    memo.set(text, value);
    return value;
  };
}
