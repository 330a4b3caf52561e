import type { z } from 'zod';

/**
 * Schemas (and their defs, which `.describe()` clones share) marked secret by `env.secret`; looked
 * up through every wrapper of a field.
 */
const SECRET_FIELDS = new WeakSet<object>();

/** A variable whose name says it holds a credential, marked or not (a safety net). */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD/i;

/** Marks a field secret: its value is never echoed in a configuration problem. */
export function markSecret<T extends z.ZodType>(field: T): T {
  SECRET_FIELDS.add(field);
  SECRET_FIELDS.add(field._zod.def);
  return field;
}

/**
 * True when the field (or any schema it wraps: optional, default, pipe, transform) was marked
 * secret, or when the variable's name says it holds a credential.
 */
export function isSecretField(name: string, field: unknown): boolean {
  if (SECRET_NAME.test(name)) return true;
  const seen = new Set<unknown>();
  const stack: unknown[] = [field];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (SECRET_FIELDS.has(node) || (def !== undefined && SECRET_FIELDS.has(def))) return true;
    if (def) stack.push(def['innerType'], def['in'], def['out'], def['schema']);
  }
  return false;
}

/**
 * How a problem shows the offending value: `missing`, `got <redacted>` for a secret, else the value
 * quoted with any URL user-info (everything up to the last `@` of the authority) and any query or
 * fragment removed, since even a non-secret URL may carry a password there.
 */
export function describeValue(raw: string | undefined, secret: boolean): string {
  if (raw === undefined) return 'missing';
  if (secret) return 'got <redacted>';
  return `got ${JSON.stringify(stripCredentials(raw))}`;
}

/** `raw` without URL user-info, query or fragment (works on malformed URLs too). */
export function stripCredentials(raw: string): string {
  let shown = raw.replace(/[?#][\s\S]*$/, '?…');
  const at = shown.lastIndexOf('@');
  if (at >= 0) {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/{0,2}/.exec(shown)?.[0] ?? '';
    shown = `${scheme}…@${shown.slice(at + 1)}`;
  }
  return shown;
}
