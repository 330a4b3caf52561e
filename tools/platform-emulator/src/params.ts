import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest } from './errors.js';

/**
 * Method parameters as received. Values from a JSON body keep their JSON types; values from a
 * query string, urlencoded or multipart form are strings (Telegram then reads nested objects such
 * as `reply_markup` or `prices` as JSON text). The readers in args.ts accept both forms.
 */
export type Params = Record<string, unknown>;

/** Bodies above this size are refused (the emulator's methods take no files). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the request's parameters the way the Bot API accepts them: the query string, then the
 * body as JSON, `application/x-www-form-urlencoded` or text fields of `multipart/form-data`
 * (body values win over query values). Throws ApiError 400 for a body that does not parse.
 */
export async function readParams(req: IncomingMessage, url: URL): Promise<Params> {
  const params: Params = Object.fromEntries(url.searchParams);
  const body = await readBody(req);
  if (body.length === 0) return params;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/json')) return { ...params, ...parseJsonObject(body.toString('utf8')) };
  if (type.startsWith('multipart/form-data')) return { ...params, ...parseMultipart(body, type) };
  return { ...params, ...Object.fromEntries(new URLSearchParams(body.toString('utf8'))) };
}

/** Reads a whole request body, refusing one above MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'Request Entity Too Large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function parseJsonObject(text: string): Params {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("can't parse JSON object");
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest("can't parse JSON object");
  return value as Params;
}

/** Text fields of a multipart body; file parts are kept as their text (no method here takes files). */
function parseMultipart(body: Buffer, contentType: string): Params {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (boundary === undefined) throw badRequest("can't parse multipart/form-data");
  const params: Params = {};
  for (const part of body.toString('latin1').split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const name = /name="([^"]*)"/i.exec(part.slice(0, split))?.[1];
    if (name === undefined) continue;
    const raw = part.slice(split + 4).replace(/\r\n$/, '');
    params[name] = Buffer.from(raw, 'latin1').toString('utf8');
  }
  return params;
}
