/** Platform kinds a session can be established from: the two mini-app hosts and direct sign-in. */
export const PLATFORM_KINDS = ['telegram', 'vk', 'direct'] as const;
export type PlatformKind = (typeof PLATFORM_KINDS)[number];

/** Client platforms within a kind. */
export const PLATFORM_SUBTYPES = ['ios', 'android', 'web'] as const;
export type PlatformSubtype = (typeof PLATFORM_SUBTYPES)[number];

/**
 * Who is calling, as recorded on the session by the backend. `platformKind` null means the
 * session has no recorded platform: it is untrusted (view-only: reads, never writes or buys).
 */
export interface SessionContext {
  accountId: bigint;
  platformKind: PlatformKind | null;
  platformSubtype: PlatformSubtype | null;
  expiresAt: Date;
}

/** A session is trusted only when it carries the platform it was established from. */
export function isTrusted(session: SessionContext): boolean {
  return session.platformKind !== null;
}

/** Narrows a backend string to a platform kind; anything else (including "") is none. */
export function asPlatformKind(value: string): PlatformKind | null {
  return (PLATFORM_KINDS as readonly string[]).includes(value) ? (value as PlatformKind) : null;
}

/** Narrows a backend string to a platform subtype; anything else (including "") is none. */
export function asPlatformSubtype(value: string): PlatformSubtype | null {
  return (PLATFORM_SUBTYPES as readonly string[]).includes(value) ? (value as PlatformSubtype) : null;
}
