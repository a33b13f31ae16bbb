/**
 * Escaping for the status page. Everything that reaches the page from state (names, ids,
 * reasons, error messages) goes through `esc`; data for the page's script goes through
 * `scriptJson`, which cannot close the <script> element it sits in.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in element content and in quoted attribute values. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}

/** JSON for a `<script type="application/json">` element: no `<`, `>`, `&` or line separators survive raw. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
