import { DomainError } from '../rpc/index.js';

const EMAIL = /^[^\s@"<>,;:()[\]\\]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** Trims and lower-cases an e-mail address; a malformed one is InvalidArgument `invalid_email`. */
export function normalizeEmail(raw: string | null): string {
  const email = (raw ?? '').trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw new DomainError('invalid_email', 'the e-mail address is not valid');
  return email;
}
