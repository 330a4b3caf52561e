import { createServer, type Server, type ServerResponse } from 'node:http';
import type { CaughtMail, MailStore } from './store.js';

const summary = ({ raw: _raw, ...rest }: CaughtMail): Omit<CaughtMail, 'raw'> => rest;

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': `${type};charset=UTF-8`,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
const json = (res: ServerResponse, status: number, body: unknown): void => send(res, status, 'application/json', JSON.stringify(body));
const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(messages: CaughtMail[]): string {
  const rows = messages
    .map(
      (m) =>
        `<tr><td>${escape(m.received_at)}</td><td>${escape(m.from)}</td><td>${escape(m.to.join(', '))}</td><td><a href="/messages/${m.id}/raw">${escape(m.subject || '(no subject)')}</a></td></tr>`,
    )
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>mailcatcher</title></head><body><h1>Caught mail (${messages.length})</h1><table border="1" cellpadding="4"><tr><th>received</th><th>from</th><th>to</th><th>subject</th></tr>${rows}</table><p>JSON: <a href="/messages">/messages</a></p></body></html>`;
}

/**
 * The catcher's view: `GET /` (HTML list), `GET /messages[?to=address]` (JSON list, newest first,
 * without bodies), `GET /messages/<id>` (JSON with `raw`), `GET /messages/<id>/raw` (the message as
 * text), `DELETE /messages` (empty the mailbox), `/livez` and `/readyz`.
 */
export function createViewServer(store: MailStore, smtpListening: () => boolean): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mailcatcher');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === '/livez') return json(res, 200, { status: 'ok' });
    if (method === 'GET' && path === '/readyz')
      return smtpListening() ? json(res, 200, { status: 'ok' }) : json(res, 503, { status: 'degraded', smtp: 'not listening' });
    if (method === 'GET' && path === '/') return send(res, 200, 'text/html', page(store.list()));
    if (path === '/messages' && method === 'GET')
      return json(res, 200, { messages: store.list(url.searchParams.get('to') ?? undefined).map(summary) });
    if (path === '/messages' && method === 'DELETE') {
      store.clear();
      return json(res, 200, { messages: [] });
    }
    const one = /^\/messages\/([0-9a-f-]{36})(\/raw)?$/.exec(path);
    const mail = one && method === 'GET' ? store.get(one[1] as string) : undefined;
    if (mail) return one?.[2] ? send(res, 200, 'text/plain', mail.raw) : json(res, 200, mail);
    json(res, 404, { error: { code: 'not_found', message: 'no such route or message' } });
  });
}
