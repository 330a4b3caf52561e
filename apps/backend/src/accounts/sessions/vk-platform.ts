import type { PlatformSubtype } from '../../gate/index.js';

/**
 * Every `vk_platform` value VK documents for mini-app launch parameters
 * (dev.vk.com/ru/mini-apps/development/launch-params), by the client platform it runs on. Every
 * iPhone and iPad value is `ios`, so the store-compliance gate freezes it; m.vk.com and the
 * desktop site are `web` (a browser, not a store app).
 */
export const VK_PLATFORMS: ReadonlyMap<string, PlatformSubtype> = new Map([
  ['mobile_iphone', 'ios'],
  ['mobile_iphone_messenger', 'ios'],
  ['mobile_ipad', 'ios'],
  ['iphone_external', 'ios'],
  ['ipad_external', 'ios'],
  ['mobile_android', 'android'],
  ['mobile_android_messenger', 'android'],
  ['android_external', 'android'],
  ['desktop_web', 'web'],
  ['desktop_web_messenger', 'web'],
  ['desktop_app_messenger', 'web'],
  ['mobile_web', 'web'],
  ['mvk_external', 'web'],
  ['web_external', 'web'],
]);

/**
 * The subtype of a signed `vk_platform`; null when it is missing or not a documented value. A vk
 * session without a subtype is frozen by the gate (fail closed), so an unknown value never spends.
 * A Map, not an object literal: `constructor` or `__proto__` must not find an inherited member.
 */
export function vkSubtype(vkPlatform: string | undefined): PlatformSubtype | null {
  return vkPlatform === undefined ? null : (VK_PLATFORMS.get(vkPlatform) ?? null);
}
