/** An NKEY user seed: `S` (seed) `U` (user), then base32 of the key and its checksum (58 characters). */
export const NKEY_USER_SEED = /^SU[A-Z2-7]{56}$/;

/** The NATS client variables the backend and the gateway share. */
export interface NatsClientVariables {
  NATS_URL?: readonly string[] | undefined;
  NATS_NKEY_SEED?: string | undefined;
  NATS_TLS_CA?: string | undefined;
}

/**
 * What is wrong across a service's NATS variables: NATS_URL without NATS_NKEY_SEED (the server
 * refuses anonymous clients), credentials in NATS_URL (they belong in NATS_NKEY_SEED, never in a
 * URL that gets logged), `nats://` and `tls://` mixed, or NATS_TLS_CA with plain `nats://`.
 */
export function natsClientIssues(c: NatsClientVariables): { path: string[]; message: string }[] {
  const urls = c.NATS_URL ?? [];
  const issues: { path: string[]; message: string }[] = [];
  if (urls.length > 0 && c.NATS_NKEY_SEED === undefined)
    issues.push({ path: ['NATS_NKEY_SEED'], message: 'required when NATS_URL is set (the NATS server admits no anonymous client)' });
  if (urls.some((u) => /^[a-z]+:\/\/[^/]*@/i.test(u)))
    issues.push({ path: ['NATS_URL'], message: 'must not carry credentials (the service signs in with NATS_NKEY_SEED)' });
  const tls = urls.filter((u) => u.startsWith('tls://')).length;
  if (tls > 0 && tls < urls.length) issues.push({ path: ['NATS_URL'], message: 'must be all nats:// or all tls:// URLs' });
  if (c.NATS_TLS_CA !== undefined && urls.length > 0 && tls === 0)
    issues.push({ path: ['NATS_TLS_CA'], message: 'needs tls:// URLs in NATS_URL' });
  return issues;
}
