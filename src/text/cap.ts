/**
 * One ceiling for every text Drover stores from outside: an extension's status message, an
 * error from ARM or the API server, a decision's reason. Table Storage refuses a property over
 * 64 KiB and a batch over 4 MiB, so one 40 KiB extension message made every instances write of
 * its pool fail (`PropertyValueTooLarge`): nothing adopted, nothing deleted, every pass. A text
 * past `maxBytes` (UTF-8) keeps its beginning, where the cause usually is, and says how much was
 * cut: `… [truncated 40,960 bytes]`.
 */
import { MAX_STORED_TEXT_BYTES } from '../limits.js';

export function capText(text: string, maxBytes: number = MAX_STORED_TEXT_BYTES): string {
  // One UTF-16 unit is at most 3 UTF-8 bytes, so a short string cannot be over.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // The marker's own length depends on the number it shows; the widest one is reserved.
  const room = Math.max(0, maxBytes - Buffer.byteLength(marker(bytes.length)));
  const kept = keptPrefix(bytes, room);
  return `${kept}${marker(bytes.length - Buffer.byteLength(kept))}`;
}

function marker(cut: number): string {
  return `… [truncated ${cut.toLocaleString('en-US')} bytes]`;
}

/** The longest prefix of at most `room` bytes that ends on a whole character. */
function keptPrefix(bytes: Buffer, room: number): string {
  let end = Math.min(room, bytes.length);
  // Back off continuation bytes (10xxxxxx) so a character is never split.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
