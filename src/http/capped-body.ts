/**
 * Reads a fetch response's body up to a cap. An answer that announces more than the cap in
 * Content-Length is refused before its body is read; one that streams past the cap is cut off
 * there. Either way memory stays bounded by the cap, whatever the other end sends.
 */

/** Load answers and probe answers are a number or a word: 64 KiB is far more than either needs. */
export const MAX_BODY_BYTES = 64 * 1024;

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly limit: number, readonly announced?: number) {
    super(`the answer was too large (${announced !== undefined ? `${announced} bytes announced` : 'more bytes sent'}, at most ${limit} read)`);
  }
}

export function isBodyTooLarge(err: unknown): err is BodyTooLargeError {
  return err instanceof BodyTooLargeError;
}

export async function readCappedText(res: Response, limit = MAX_BODY_BYTES): Promise<string> {
  const announced = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(announced) && announced > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new BodyTooLargeError(limit, announced);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
