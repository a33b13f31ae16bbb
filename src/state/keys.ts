/**
 * PartitionKey and RowKey may not contain `/ \ # ?` or control characters, yet Drover keys
 * are resource ids and names full of slashes. Escaping is percent-style and reversible, and
 * leaves every other character alone so keys stay readable in Storage Explorer.
 */
// Control characters are exactly what this pattern is for.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[%/\\#?\u0000-\u001f\u007f-\u009f]/g;

export function escapeKey(raw: string): string {
  return raw.replace(FORBIDDEN, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

export function unescapeKey(escaped: string): string {
  return escaped.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
