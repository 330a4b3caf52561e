import type { ServerResponse } from 'node:http';

/** Writes a JSON answer (no-op if the client is already gone). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Writes an HTML answer, as a proxy in front of the Bot API does on 5xx. */
export function sendHtml(res: ServerResponse, status: number, html: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'text/html', 'content-length': String(Buffer.byteLength(html)) });
  res.end(html);
}

/** Resolves after `ms`, or early (without error) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Writes `body` exactly as given, for faults that answer something other than a Bot API envelope. */
export function sendRaw(res: ServerResponse, status: number, body: string, contentType: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}
