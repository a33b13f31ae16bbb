/**
 * What may leave Drover as text: every log line, decision and `lastError` passes through here.
 * URLs lose their query string and userinfo (SAS signatures, function keys and tokens ride
 * there), credential values in text are blanked, and control characters are escaped so that no
 * value can forge a log line. Text from outside is also refused at the door: a queue message's
 * `reason` must be printable (src/queue/messages.ts).
 */

/** `scheme://…` up to the first character a URL cannot hold unescaped in text. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
/** `key=value` pairs whose value is a credential wherever they appear (connection strings, query strings). */
const SECRET_ASSIGNMENT = /\b(AccountKey|SharedAccessSignature|SharedAccessKey|sig|token|code|password)(\s*=\s*)("[^"]*"|'[^']*'|[^\s;&,"']+)/gi;
/** `key: value` of a kubeconfig's user entry, as a YAML parser may quote it. */
const SECRET_YAML_FIELD = /\b(token|client-key-data|client-certificate-data|password)(\s*:\s*)("[^"]*"|'[^']*'|[^\s,"'}]+)/gi;
/** C0 and C1 control characters and the two Unicode line separators: what could break or forge a line. */
const CONTROL_RANGES = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029';
const CONTROL = new RegExp(`[${CONTROL_RANGES}]`, 'g');

const REDACTED = '[redacted]';

/** A URL without its query string, fragment and userinfo; the path stays (it names the resource). */
function redactUrl(url: string): string {
  return url.replace(URL_IN_TEXT, (found) => {
    const cut = found.search(/[?#]/);
    const base = cut === -1 ? found : found.slice(0, cut);
    const withoutUser = base.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, `$1${REDACTED}@`);
    return cut === -1 ? withoutUser : `${withoutUser}?${REDACTED}`;
  });
}

/** Control characters as `\u00XX`, so one value stays on one line. */
function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** URLs without query strings and credential values blanked; line breaks stay (a CLI error may list problems). */
export function redactSecrets(text: string): string {
  return redactUrl(text).replace(SECRET_ASSIGNMENT, `$1$2${REDACTED}`).replace(SECRET_YAML_FIELD, `$1$2${REDACTED}`);
}

/** Text safe for one log line or one decision: secrets redacted and control characters escaped. */
export function redact(text: string): string {
  return escapeControl(redactSecrets(text));
}

/** Printable characters only, as the queue message schema demands of `reason`. */
export const PRINTABLE = new RegExp(`^[^${CONTROL_RANGES}]*$`);

/** Every string argument of a log call redacted; errors become their redacted message. */
export function redactLogArgs(args: readonly unknown[]): unknown[] {
  return args.map((a) => {
    if (typeof a === 'string') return redact(a);
    if (a instanceof Error) return redact(a.message);
    return a;
  });
}
