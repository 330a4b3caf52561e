/** How the page was opened: which session endpoint it signs in through and with what signed data. */
export type Launch =
  | { kind: 'telegram'; initData: string; languageCode: string | undefined }
  | { kind: 'vk'; launchParams: string; languageCode: string | undefined }
  | { kind: 'web' };

/** What the page can see of its launch: the URL's query and hash, and a host-injected Telegram WebApp object. */
export interface LaunchSources {
  search: string;
  hash: string;
  /** `window.Telegram.WebApp.initData` when the host provides it (empty outside Telegram). */
  telegramInitData?: string | undefined;
}

/**
 * Detects the context: a Telegram mini-app (init data from `Telegram.WebApp.initData`, else the
 * `tgWebAppData` parameter of the launch URL's hash, as Telegram passes it), a VK mini-app (signed
 * `vk_*` parameters and `sign` in the query string, sent verbatim for the gateway to verify), else
 * the plain web. Nothing here is trusted: the gateway checks every signature.
 */
export function detectLaunch(sources: LaunchSources): Launch {
  const initData = sources.telegramInitData || new URLSearchParams(sources.hash.replace(/^#/, '')).get('tgWebAppData') || '';
  if (initData) return { kind: 'telegram', initData, languageCode: telegramLanguage(initData) };
  const query = sources.search.replace(/^\?/, '');
  const params = new URLSearchParams(query);
  if (params.has('sign') && [...params.keys()].some((k) => k.startsWith('vk_'))) {
    return { kind: 'vk', launchParams: query, languageCode: params.get('vk_language') ?? undefined };
  }
  return { kind: 'web' };
}

/** The `language_code` of the init data's `user`, when it is there and well-formed. */
function telegramLanguage(initData: string): string | undefined {
  const user = new URLSearchParams(initData).get('user');
  if (!user) return undefined;
  try {
    const parsed: unknown = JSON.parse(user);
    if (typeof parsed === 'object' && parsed !== null && 'language_code' in parsed && typeof parsed.language_code === 'string')
      return parsed.language_code;
  } catch {
    return undefined;
  }
  return undefined;
}
