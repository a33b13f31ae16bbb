/**
 * One bounded GET of an ARM resource for a load source (the Service Bus entity, Azure Monitor
 * metrics): a token of Drover's identity for the ARM endpoint, the source's deadline, a 64 KiB
 * answer, no redirects. Never throws: an answer outside 2xx is a failure naming ARM's code.
 */
import { isBodyTooLarge, readCappedText } from '../http/capped-body.js';
import { errorMessage } from '../log.js';
import type { SourcePorts } from './source-kind.js';

export type ArmAnswer = { ok: true; status: number; body: unknown } | { ok: false; status?: number; code?: string; error: string };

/** The ARM token's scope: the endpoint's origin, as the compute adapter asks for it. */
export const armScope = (endpoint: string) => `${new URL(endpoint).origin}/.default`;

export async function armGet(url: URL, ports: Pick<SourcePorts, 'credential'>, timeoutMs: number, signal: AbortSignal): Promise<ArmAnswer> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  try {
    const token = await ports.credential().getToken(armScope(url.href), { abortSignal: both });
    if (!token) return { ok: false, error: 'no token for Azure Resource Manager' };
    const res = await fetch(url, { headers: { accept: 'application/json', authorization: `Bearer ${token.token}` }, redirect: 'manual', signal: both });
    const text = await readCappedText(res);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, status: res.status, error: `answered ${res.status} with no JSON` };
    }
    if (res.status >= 200 && res.status <= 299) return { ok: true, status: res.status, body };
    const failure = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    const code = typeof failure?.code === 'string' ? failure.code : undefined;
    const message = typeof failure?.message === 'string' ? `: ${failure.message.slice(0, 200)}` : '';
    return { ok: false, status: res.status, code, error: `answered ${res.status}${code ? ` ${code}` : ''}${message}` };
  } catch (error) {
    if (isBodyTooLarge(error)) return { ok: false, error: error.message };
    if (timeout.aborted) return { ok: false, error: `no answer within ${timeoutMs} ms` };
    return { ok: false, error: errorMessage(error) };
  }
}
