import { createHmac } from 'node:crypto';
import { stringify } from 'node:querystring';
import type { PlatformSubtype } from '../../gate/index.js';
import { vkSubtype } from './vk-platform.js';
import { assertFresh, invalid, sameSignature, uniquePairs } from './launch-data.js';

/** The verified parts of VK Mini App launch parameters. */
export interface VkLaunch {
  /** vk_user_id as a decimal string (the identity's external id). */
  userId: string;
  /** The signed vk_platform as sent (attacker-influenced text: log it only truncated); null when absent. */
  vkPlatform: string | null;
  /** From the signed vk_platform (see vk-platform.ts); null when it is missing or unknown (frozen). */
  subtype: PlatformSubtype | null;
}

/**
 * Verifies VK launch parameters: sign = base64url(HMAC_SHA256(app secret, the vk_* params sorted by
 * key and joined as a query string)), without padding. A bad or missing sign or user id is
 * `launch_data_invalid`; a vk_ts outside the window is `launch_data_stale`.
 */
export function verifyVkLaunchParams(query: string, appSecret: string, nowSeconds: number, maxAgeSeconds: number): VkLaunch {
  const pairs = uniquePairs(query);
  const sign = pairs.get('sign');
  if (sign === undefined || !/^[A-Za-z0-9_-]{43}$/.test(sign)) throw invalid('launch params sign missing or malformed');
  const signed = Object.fromEntries(
    [...pairs.entries()].filter(([k]) => k.startsWith('vk_')).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const expected = createHmac('sha256', appSecret).update(stringify(signed)).digest('base64url');
  if (!sameSignature(expected, sign)) throw invalid('launch params signature does not match');

  assertFresh(signed['vk_ts'], nowSeconds, maxAgeSeconds, 'vk_ts');
  const userId = signed['vk_user_id'];
  if (userId === undefined || !/^[1-9][0-9]{0,18}$/.test(userId)) throw invalid('vk_user_id missing or malformed');
  const vkPlatform = signed['vk_platform'];
  return { userId, vkPlatform: vkPlatform ?? null, subtype: vkSubtype(vkPlatform) };
}
