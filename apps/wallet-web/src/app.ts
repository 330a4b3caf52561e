import type { Translator } from '@wordgame/i18n';
import type { Session } from './session.js';

/** The tabs of the wallet page. */
export type TabId = 'wallet' | 'buy' | 'history' | 'profile';

/** What every tab gets: the words, the session, and the shell's navigation and order tracking. */
export interface App {
  readonly t: Translator;
  readonly session: Session;
  /** Switches to a tab (and reloads it). */
  show(tab: TabId): void;
  /** Tracks an order's progress in the status line until it is credited or failed. */
  follow(orderId: string, invoiceLink?: string | null): void;
}
