import type { Response } from 'express';
import { html, raw, type SafeHtml } from '../http/index.js';
import type { ConsoleOperator } from './operator.js';

const STYLE = raw(`body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222}
header{background:#263238;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center}
header a{color:#fff}header form{margin-left:auto}main{padding:16px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}.error{color:#b00020}.debt{color:#b00020;font-weight:600}.notice{background:#e8f5e9;padding:6px}
fieldset{margin:8px 0}label{margin-right:12px}
table.fit{width:100%}table.fit td{overflow-wrap:anywhere}pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}form.act{display:inline-block;margin:1px}`);

/** Headers every console response carries: no caching, no framing, no scripts, no sniffing. */
export function consoleHeaders(res: Response): void {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader(
    'content-security-policy',
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
}

/** The hidden CSRF field every POST form carries. */
export function csrfField(operator: ConsoleOperator): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${operator.csrf}">`;
}

/** A whole page: navigation by the operator's roles, a sign-out form, and the body. */
export function page(title: string, body: SafeHtml, operator?: ConsoleOperator): SafeHtml {
  const nav = operator
    ? html`<nav>${operator.roles.includes('viewer') ? html`<a href="/_gm/ledger">Ledger</a> <a href="/_gm/unmatched">Unmatched</a> <a href="/_gm/reconciliation">Reconciliation</a> <a href="/_gm/support">Support</a> <a href="/_gm/revenue">Revenue</a> <a href="/_gm/codes">Codes</a> ` : ''}${operator.roles.includes('catalog_editor') ? html`<a href="/_gm/catalog">Catalog</a> ` : ''}${operator.roles.includes('moderator') ? html`<a href="/_gm/users">Users</a> ` : ''}${operator.roles.includes('granter') ? html`<a href="/_gm/grant">Make-good</a>` : ''}</nav>
<form method="post" action="/_gm/logout">${csrfField(operator)}<span>${operator.login}</span> <button type="submit">Sign out</button></form>`
    : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title} · console</title><style>${STYLE}</style></head>
<body><header><strong>Operator console</strong>${nav}</header><main><h1>${title}</h1>${body}</main></body></html>`;
}

/** Sends a page with a status. */
export function send(res: Response, status: number, content: SafeHtml): void {
  consoleHeaders(res);
  res.status(status).type('html').send(content.value);
}

/** Sends a short error page. */
export function sendError(res: Response, status: number, title: string, message: string, operator?: ConsoleOperator): void {
  send(res, status, page(title, html`<p class="error" id="error">${message}</p>`, operator));
}
