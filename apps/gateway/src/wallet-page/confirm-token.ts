import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a confirmation page's button stays valid after the page was served (30 minutes). */
export const PAGE_TOKEN_TTL_SECONDS = 1_800;

const LABEL = 'wordgame-confirm-page-key-v1';
const PAGE_TOKEN = /^([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Mints and checks the token a confirmation page's form carries: `<expiry>.<mac>`, the mac an
 * HMAC-SHA256 over the expiry (unix seconds) and the mailed confirmation token. The key is derived
 * from a secret every gateway replica holds and no client does (the backend service token), so a
 * page served by one replica is accepted by another, and nobody can make one without fetching a
 * page for that very confirmation token. It needs no storage: serving the page writes nothing.
 */
export class ConfirmPageTokens {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly now: () => number,
  ) {
    this.key = createHmac('sha256', secret).update(LABEL).digest();
  }

  /** A page token for `confirmationToken`, valid for PAGE_TOKEN_TTL_SECONDS from now. */
  mint(confirmationToken: string): string {
    const expiry = Math.floor(this.now() / 1000) + PAGE_TOKEN_TTL_SECONDS;
    return `${expiry}.${this.mac(expiry, confirmationToken)}`;
  }

  /** Whether `pageToken` was minted for `confirmationToken` and has not expired (constant-time on the mac). */
  valid(confirmationToken: string, pageToken: unknown): boolean {
    const match = typeof pageToken === 'string' ? PAGE_TOKEN.exec(pageToken) : null;
    if (!match) return false;
    const expiry = Number(match[1]);
    const nowSeconds = Math.floor(this.now() / 1000);
    if (expiry <= nowSeconds || expiry > nowSeconds + PAGE_TOKEN_TTL_SECONDS) return false;
    const given = Buffer.from(match[2] ?? '');
    const expected = Buffer.from(this.mac(expiry, confirmationToken));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(expiry: number, confirmationToken: string): string {
    return createHmac('sha256', this.key).update(`${expiry}.${confirmationToken}`).digest('base64url');
  }
}
