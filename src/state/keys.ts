/**
 * PartitionKey and RowKey may not contain `/ \ # ?` or control characters, yet Drover keys
 * are resource ids and names full of slashes. Escaping is percent-style and reversible, and
 * leaves every other character alone so keys stay readable in Storage Explorer.
 *
 * Both directions are plain loops over char codes: every row of every read goes through
 * `unescapeKey` twice, and a regex with a replacer callback costs a call and a string per match.
 */

/** `%XX` (upper-case hex) for every char code that must be escaped, undefined for the rest. */
const ESCAPES: (string | undefined)[] = [];
for (let code = 0; code <= 0x9f; code++) {
  const forbidden = code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x25 /* % */ || code === 0x2f /* / */ || code === 0x5c /* \ */ || code === 0x23 /* # */ || code === 0x3f; /* ? */
  ESCAPES.push(forbidden ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : undefined);
}

export function escapeKey(raw: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    const escape = code <= 0x9f ? ESCAPES[code] : undefined;
    if (escape === undefined) continue;
    out += raw.slice(from, i) + escape;
    from = i + 1;
  }
  return from === 0 ? raw : out + raw.slice(from);
}

export function unescapeKey(escaped: string): string {
  let i = escaped.indexOf('%');
  if (i < 0) return escaped;
  let out = '';
  let from = 0;
  while (i >= 0) {
    const high = hexDigit(escaped.charCodeAt(i + 1));
    const low = high < 0 ? -1 : hexDigit(escaped.charCodeAt(i + 2));
    if (low < 0) {
      // Not an escape (escapeKey writes upper-case hex only): the percent sign stays as it is.
      i = escaped.indexOf('%', i + 1);
      continue;
    }
    out += escaped.slice(from, i) + String.fromCharCode(high * 16 + low);
    from = i + 3;
    i = escaped.indexOf('%', from);
  }
  return out + escaped.slice(from);
}

/** The value of an upper-case hex digit, -1 for anything else (NaN past the end included). */
function hexDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return -1;
}
