import { ApiError, call } from './api/client.js';
import type { ProfileJson, SessionJson } from './api/types.js';
import type { Launch } from './launch/context.js';

const TOKEN_KEY = 'wallet.session';
const ORDER_KEY = 'wallet.pending_order';

/** The browser's storage, or a page-lifetime map where a webview refuses localStorage. */
const memory = new Map<string, string>();
const store = {
  get(key: string): string | null {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return memory.get(key) ?? null;
    }
  },
  set(key: string, value: string | null): void {
    try {
      if (value === null) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
    } catch {
      if (value === null) memory.delete(key);
      else memory.set(key, value);
    }
  },
};

/** A signed-in player: the bearer token and the profile it opened on (its platform is the context). */
export interface Session {
  token: string;
  profile: ProfileJson;
}

/**
 * The session for this launch. A mini-app launch always opens a fresh one from its signed data; the
 * plain web reuses the stored token while the gateway accepts it. The token is kept in localStorage
 * so the page the card checkout returns to (a plain /wallet, without launch data) is still signed in.
 * Null means the web page must ask the player to sign in or sign up.
 */
export async function resumeSession(launch: Launch): Promise<Session | null> {
  if (launch.kind === 'telegram')
    return adopt(await call<SessionJson>('/session/telegram', { method: 'POST', body: { init_data: launch.initData } }));
  if (launch.kind === 'vk')
    return adopt(await call<SessionJson>('/session/vk', { method: 'POST', body: { launch_params: launch.launchParams } }));
  const token = store.get(TOKEN_KEY);
  if (!token) return null;
  try {
    return { token, profile: await call<ProfileJson>('/user/profile', { token }) };
  } catch (err: unknown) {
    if (err instanceof ApiError && err.status === 401) {
      store.set(TOKEN_KEY, null);
      return null;
    }
    throw err;
  }
}

/** Signs up or in on the web (`session.direct`) and keeps the token. */
export async function signInDirect(email: string, password: string, mode: 'signup' | 'signin'): Promise<Session> {
  return adopt(await call<SessionJson>('/session/direct', { method: 'POST', body: { email, password, mode, subtype: 'web' } }));
}

/** Closes the session at the gateway (best effort) and forgets it here. */
export async function signOut(session: Session): Promise<void> {
  store.set(TOKEN_KEY, null);
  store.set(ORDER_KEY, null);
  await call('/session', { method: 'DELETE', token: session.token }).catch(() => undefined);
}

/** Remembers the card order sent to the provider's checkout, so the page it returns to can show it. */
export function rememberPendingOrder(orderId: string | null): void {
  store.set(ORDER_KEY, orderId);
}

/** The card order last sent to checkout, if any. */
export function pendingOrder(): string | null {
  return store.get(ORDER_KEY);
}

async function adopt(session: SessionJson): Promise<Session> {
  store.set(TOKEN_KEY, session.token);
  return { token: session.token, profile: await call<ProfileJson>('/user/profile', { token: session.token }) };
}
