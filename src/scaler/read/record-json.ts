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
