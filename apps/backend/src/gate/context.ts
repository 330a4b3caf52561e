/** Funding origins: one wallet segment (and benefit origin) each. */
export const SEGMENTS = ['direct', 'telegram', 'vk'] as const;
export type Segment = (typeof SEGMENTS)[number];

export const PLATFORM_KINDS = ['telegram', 'vk', 'direct'] as const;
export type SessionPlatformKind = (typeof PLATFORM_KINDS)[number];

export const PLATFORM_SUBTYPES = ['ios', 'android', 'web'] as const;
export type PlatformSubtype = (typeof PLATFORM_SUBTYPES)[number];

/** A session's recorded platform; null kind = no recorded platform (untrusted). */
export interface SessionPlatform {
  kind: SessionPlatformKind | null;
  subtype: PlatformSubtype | null;
}

/** Ways to pay for a product: spend chips, direct-rail money, platform stars. */
export const PAYMENT_METHODS = ['chips', 'provider', 'xtr'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export function isSegment(v: string): v is Segment {
  return (SEGMENTS as readonly string[]).includes(v);
}
export function isPlatformKind(v: string): v is SessionPlatformKind {
  return (PLATFORM_KINDS as readonly string[]).includes(v);
}
export function isPlatformSubtype(v: string): v is PlatformSubtype {
  return (PLATFORM_SUBTYPES as readonly string[]).includes(v);
}

/**
 * The X-Platform header value for a platform: `kind;subtype`, `kind`, or `none` (untrusted).
 * The inverse of parsePlatformHeader.
 */
export function formatPlatformHeader(p: SessionPlatform): string {
  if (p.kind === null) return 'none';
  return p.subtype === null ? p.kind : `${p.kind};${p.subtype}`;
}

/** Parses an X-Platform value; null when malformed (a kind-less subtype is malformed). */
export function parsePlatformHeader(value: string): SessionPlatform | null {
  if (value === 'none') return { kind: null, subtype: null };
  const [kind, subtype, extra] = value.split(';');
  if (kind === undefined || extra !== undefined || !isPlatformKind(kind)) return null;
  if (subtype === undefined) return { kind, subtype: null };
  return isPlatformSubtype(subtype) ? { kind, subtype } : null;
}
