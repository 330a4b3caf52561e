import { gate } from '../../gate/index.js';
import { VK_PLATFORMS, vkSubtype } from './vk-platform.js';

const DOCUMENTED = {
  ios: ['mobile_iphone', 'mobile_iphone_messenger', 'mobile_ipad', 'iphone_external', 'ipad_external'],
  android: ['mobile_android', 'mobile_android_messenger', 'android_external'],
  web: ['desktop_web', 'desktop_web_messenger', 'desktop_app_messenger', 'mobile_web', 'mvk_external', 'web_external'],
} as const;

describe('vk_platform mapping', () => {
  it.each(Object.entries(DOCUMENTED).flatMap(([subtype, values]) => values.map((v) => [v, subtype])))('%s -> %s', (value, subtype) => {
    expect(vkSubtype(value)).toBe(subtype);
  });

  it('holds every documented value and nothing else', () => {
    expect([...VK_PLATFORMS.keys()].sort()).toEqual(Object.values(DOCUMENTED).flat().sort());
  });

  it('every iPhone or iPad value lands in the frozen vk context', () => {
    for (const value of [...VK_PLATFORMS.keys()].filter((v) => /iphone|ipad/.test(v))) {
      expect(gate({ kind: 'vk', subtype: vkSubtype(value), emailConfirmed: true })).toMatchObject({
        frozen: true,
        canSpend: false,
        canPurchaseMethods: [],
      });
    }
  });

  it('a missing, unknown or inherited-member value has no subtype, so the vk session is frozen', () => {
    for (const value of [
      undefined,
      '',
      'mobile_vision_pro',
      'MOBILE_ANDROID',
      'mobile_android ',
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
    ]) {
      const subtype = vkSubtype(value);
      expect(subtype).toBeNull();
      expect(gate({ kind: 'vk', subtype, emailConfirmed: true })).toMatchObject({
        frozen: true,
        canSpend: false,
        canPurchaseMethods: [],
        fundingSegment: null,
      });
    }
  });
});
