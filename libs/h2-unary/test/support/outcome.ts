import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { service } from './echo.js';

/** How a call ended: the answer with its headers and trailers, or the ConnectError's parts. */
export type Outcome =
  | { ok: true; body: string; header: [string, string][]; trailer: [string, string][] }
  | { ok: false; code: Code; message: string; metadata: [string, string][]; details: unknown[] };

const listed = (h: Headers) => [...h.entries()].filter(([k]) => k !== 'date').sort(([a], [b]) => a.localeCompare(b));

/**
 * Runs Check with `command` as its body over `transport` (with an `x-in` header, and the timeout
 * and signal when given) and records how it ended, so two transports' outcomes compare with
 * `toEqual` (headers sorted, the date left out).
 */
export async function call(transport: Transport, command: string, timeoutMs?: number, signal?: AbortSignal): Promise<Outcome> {
  let header = new Headers();
  let trailer = new Headers();
  try {
    const res = await createClient(service, transport).check(
      { body: new TextEncoder().encode(command) },
      {
        headers: { 'x-in': 'v' },
        onHeader: (h) => (header = h),
        onTrailer: (t) => (trailer = t),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(signal ? { signal } : {}),
      },
    );
    return { ok: true, body: new TextDecoder().decode(res.body), header: listed(header), trailer: listed(trailer) };
  } catch (err: unknown) {
    const e = ConnectError.from(err);
    return { ok: false, code: e.code, message: e.rawMessage, metadata: listed(e.metadata), details: e.details };
  }
}
