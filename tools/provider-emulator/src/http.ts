import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body accepted (YooKassa bodies are a few KB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a request body as UTF-8; rejects when it is larger than {@link MAX_BODY_BYTES}. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Writes a JSON answer; `json` is already serialised so replays are byte-identical. */
export function sendJson(response: ServerResponse, status: number, json: string): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(json),
  });
  response.end(json);
}

/** Writes a small HTML page. */
export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html;charset=UTF-8', 'content-length': Buffer.byteLength(html) });
  response.end(html);
}

/** Redirects the browser with 303 See Other (after a form POST). */
export function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { location, 'content-length': 0 });
  response.end();
}

/** Parses a JSON body, treating an empty body as `{}`; throws SyntaxError for bad JSON. */
export function parseJson(raw: string): unknown {
  return raw.trim() === '' ? {} : (JSON.parse(raw) as unknown);
}
