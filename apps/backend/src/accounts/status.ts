import type { AccountStatus } from './accounts.table.js';

/** The account columns that decide whether it may act. */
export interface AccountState {
  status: AccountStatus;
  suspended_until: Date | null;
  chat_muted: boolean;
}

/** Admin-suspended right now: status suspended with no end, or an end still in the future. */
export function isSuspended(a: AccountState, now: Date): boolean {
  return a.status === 'suspended' && (a.suspended_until === null || a.suspended_until > now);
}

/** May write in the moderated chat: not deleted, not suspended (respecting the end), not chat-muted. */
export function isChatEligible(a: AccountState, now: Date): boolean {
  return a.status !== 'deleted' && !isSuspended(a, now) && !a.chat_muted;
}
