import { createHmac } from 'node:crypto';
import { assertFresh, invalid, sameSignature, uniquePairs } from './launch-data.js';

/** The verified parts of Telegram Mini App init data. */
export interface TelegramLaunch {
  /** user.id as a decimal string (the identity's external id). */
  userId: string;
  displayName: string;
  authDate: number;
}

/**
 * Verifies Telegram Mini App init data: secret = HMAC_SHA256(key "WebAppData", bot token); hash =
 * hex HMAC_SHA256(secret, the sorted `key=value` lines of every other field). A bad or missing hash
 * or user is `launch_data_invalid`; an auth_date outside the window is `launch_data_stale`.
 * Telegram does not sign the client platform, so no subtype comes out of here.
 */
export function verifyTelegramInitData(initData: string, botToken: string, nowSeconds: number, maxAgeSeconds: number): TelegramLaunch {
  const pairs = uniquePairs(initData);
  const hash = pairs.get('hash');
  if (hash === undefined || !/^[0-9a-f]{64}$/.test(hash)) throw invalid('init data hash missing or malformed');
  pairs.delete('hash');
  const dataCheckString = [...pairs.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  const expected = createHmac('sha256', secret).update(dataCheckString).digest('hex');
  if (!sameSignature(expected, hash)) throw invalid('init data signature does not match');

  const authDate = assertFresh(pairs.get('auth_date'), nowSeconds, maxAgeSeconds, 'auth_date');
  const user = parseUser(pairs.get('user'));
  return { userId: user.id, displayName: user.name, authDate };
}

function parseUser(raw: string | undefined): { id: string; name: string } {
  if (raw === undefined) throw invalid('init data has no user');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid('init data user is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid('init data user is not an object');
  const u = parsed as Record<string, unknown>;
  if (typeof u['id'] !== 'number' || !Number.isSafeInteger(u['id']) || u['id'] <= 0)
    throw invalid('init data user id is not a positive integer');
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const name = [text(u['first_name']), text(u['last_name'])].join(' ').trim() || text(u['username']);
  return { id: String(u['id']), name: name.slice(0, 64) };
}
