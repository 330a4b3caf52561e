import { keyQuotaOver, quotaOver, type KeyQuota, type Quota } from './quota.js';
import { signInLimitOver, type SignInLimit } from './sign-in.js';
import type { Clock } from '../support/index.js';
import { limiterFor, type CounterStore, type Rule } from './limits.store.js';

export { clientAddressOf, CLIENT_ADDRESS_HEADER } from './keys.js';
export type { KeyQuota, Quota } from './quota.js';
export type { FailureOutcome, SignInAttempt, SignInLimit } from './sign-in.js';
export type { CounterStore } from './limits.store.js';

/** The limits as configured (backend config.ts; README "Rate limits"). */
export interface LimitSettings {
  signInWindowSeconds: number;
  signInMaxFailures: number;
  signInAddressMaxFailures: number;
  orderCreateMax: number;
  orderCreateAddressMax: number;
  dataExportMax: number;
  dataExportAddressMax: number;
  confirmationMailMax: number;
  confirmationMailAddressMax: number;
  confirmationMailRecipientMax: number;
  confirmationMailRecipientWindowHours: number;
  starChargesListMax: number;
  supportCaseOpenMax: number;
  codeRedeemMax: number;
  codeRedeemAddressMax: number;
  subscriptionEditMax: number;
  subscriptionEditAddressMax: number;
}

/** Every rate limit of the backend: the one place that decides how often a caller may try. */
export interface Limits {
  /** Direct (e-mail) sign-in: failures per e-mail and per client address. */
  directSignIn: SignInLimit;
  /** Console and operator-API sign-in: failures per operator login and per client address. */
  operatorSignIn: SignInLimit;
  /** Order creation per account and per client address, per hour. */
  orderCreate: Quota;
  /** Data exports per account and per client address, per hour. */
  dataExport: Quota;
  /** Confirmation mails from profile e-mail changes per account and per client address, per hour. */
  confirmationMail: Quota;
  /**
   * Confirmation mails per recipient address, whatever sends them (sign-up, profile e-mail change)
   * and whichever account asks: keyed by the address, so deleting an account and signing up again
   * does not reset it.
   */
  confirmationRecipient: KeyQuota;
  /** The bot's ListStarCharges per platform user, per minute (keyed by platform and user id). */
  starChargesList: KeyQuota;
  /** The bot's OpenSupportCase per platform user, per hour, refused or not (keyed by platform and user id). */
  supportCaseOpen: KeyQuota;
  /**
   * Code redemption attempts per account and per client address, per hour, whatever their outcome:
   * with codes of 80 bits (or typed ones the operator chose) this is what makes guessing useless.
   */
  codeRedeem: Quota;
  /** A player's cancel / re-enable of a subscription (each a platform call through the bot) per account and per client address, per hour. */
  subscriptionEdit: Quota;
}

const HOUR = 3_600;

/**
 * Builds the limits over `store`, the PostgreSQL table every replica shares, so all count as one.
 * Each limit has its own key prefix. The quotas run their windows by `now` (the backend's one
 * clock) and take all their counters in one statement; the sign-in limits stay on
 * rate-limiter-flexible (they reset and reward counters), and their rule `signin_login` is the one
 * that sweeps rows expired an hour ago from the whole table.
 */
export function createLimits(settings: LimitSettings, store: CounterStore, now: Clock): Limits {
  const window = settings.signInWindowSeconds;
  const limiter = (prefix: string, points: number, durationSeconds: number, sweeper = false) =>
    limiterFor(store, { prefix, points, durationSeconds }, sweeper);
  const rule = (prefix: string, points: number, durationSeconds: number): Rule => ({ prefix, points, durationSeconds });
  const q = { store, now };
  return {
    directSignIn: signInLimitOver(
      limiter('signin_login', settings.signInMaxFailures, window, true),
      limiter('signin_addr', settings.signInAddressMaxFailures, window),
    ),
    operatorSignIn: signInLimitOver(
      limiter('opsignin_login', settings.signInMaxFailures, window),
      limiter('opsignin_addr', settings.signInAddressMaxFailures, window),
    ),
    orderCreate: quotaOver(q, rule('order_acct', settings.orderCreateMax, HOUR), rule('order_addr', settings.orderCreateAddressMax, HOUR)),
    dataExport: quotaOver(q, rule('export_acct', settings.dataExportMax, HOUR), rule('export_addr', settings.dataExportAddressMax, HOUR)),
    confirmationMail: quotaOver(
      q,
      rule('mail_acct', settings.confirmationMailMax, HOUR),
      rule('mail_addr', settings.confirmationMailAddressMax, HOUR),
    ),
    confirmationRecipient: keyQuotaOver(
      q,
      rule('mail_to', settings.confirmationMailRecipientMax, settings.confirmationMailRecipientWindowHours * HOUR),
    ),
    starChargesList: keyQuotaOver(q, rule('charges_user', settings.starChargesListMax, 60)),
    supportCaseOpen: keyQuotaOver(q, rule('case_user', settings.supportCaseOpenMax, HOUR)),
    codeRedeem: quotaOver(q, rule('code_acct', settings.codeRedeemMax, HOUR), rule('code_addr', settings.codeRedeemAddressMax, HOUR)),
    subscriptionEdit: quotaOver(
      q,
      rule('subedit_acct', settings.subscriptionEditMax, HOUR),
      rule('subedit_addr', settings.subscriptionEditAddressMax, HOUR),
    ),
  };
}
