import type { ServerResponse } from 'node:http';

/** JSON.stringify replacer of the REST edge: bigints (ids, amounts) are written as decimal strings. */
export function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * Writes `body` as the whole JSON answer in one go (status, type, length, body): what Express's
 * `res.json` sends, without its per-call content negotiation and header bookkeeping, for the REST
 * operations and errors that every request ends in. Headers set earlier (x-request-id) are kept.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, bigintAsString);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
