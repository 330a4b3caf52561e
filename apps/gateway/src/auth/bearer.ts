import type { Request } from 'express';

const BEARER = /^Bearer +([\x21-\x7e]{1,512})$/i;

/** The token of an `Authorization: Bearer <token>` header, or undefined when absent or malformed. */
export function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}
