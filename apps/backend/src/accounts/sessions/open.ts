import type { Kysely } from 'kysely';
import type { DB } from '../../db/index.js';
import { openWallet } from '../../ledger/index.js';
import type { PlatformKind } from '../accounts.table.js';
import { permitConfirmationMail, requestConfirmation, type ConfirmationDeps } from '../confirmation.js';
import { normalizeEmail } from '../email.js';
import { hashPassword, verifyPassword } from '../password.js';
import { findAccount, findAccountByEmail, identityAccount, insertAccount, insertIdentity, isUniqueViolation } from '../accounts.store.js';
import { isSuspended, type AccountState } from '../status.js';
import { isPlatformSubtype, type SessionPlatform } from '../../gate/index.js';
import type { Limits } from '../../limits/index.js';
import { DomainError } from '../../rpc/index.js';
import { deleteSession, findLiveSession, insertSession } from './sessions.store.js';
import { verifyTelegramInitData } from './telegram.js';
import { verifyVkLaunchParams } from './vk.js';

/** Settings the session flows need. */
export interface SessionSettings {
  telegramBotToken: string | undefined;
  vkAppSecret: string | undefined;
  launchDataMaxAgeSeconds: number;
  sessionTtlHours: number;
}

export interface SessionDeps extends ConfirmationDeps {
  settings: SessionSettings;
  /** Sign-in failures and confirmation mails (per account, client address and recipient) are counted here. */
  limits: Pick<Limits, 'directSignIn' | 'confirmationMail' | 'confirmationRecipient'>;
}

/** A session just opened. */
export interface SessionGrantView {
  token: string;
  accountId: bigint;
  platform: SessionPlatform;
  expiresAt: Date;
  accountCreated: boolean;
}

/** A live session as the gateway needs it. */
export interface SessionInfoView {
  accountId: bigint;
  platform: SessionPlatform;
  expiresAt: Date;
}

const secondsOf = (now: Date) => Math.floor(now.getTime() / 1000);

/** Opens an account with its three (empty) wallet segments, linking the identity when given, in one transaction. */
async function openAccount(
  db: Kysely<DB>,
  values: { displayName: string; email?: string; passwordHash?: string },
  identity?: { kind: PlatformKind; externalId: string },
): Promise<bigint> {
  return db.transaction().execute(async (trx) => {
    const id = await insertAccount(trx, values);
    await openWallet(trx, id);
    if (identity) await insertIdentity(trx, id, identity.kind, identity.externalId);
    return id;
  });
}

/**
 * The account a platform identity belongs to, creating account and identity on first sight.
 * Two first sessions racing for one identity end on the same account: the loser's insert hits the
 * unique key, its transaction rolls back and it reads the winner's row.
 */
async function accountForIdentity(
  db: Kysely<DB>,
  kind: PlatformKind,
  externalId: string,
  displayName: string,
): Promise<{ accountId: bigint; created: boolean }> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const existing = await identityAccount(db, kind, externalId);
    if (existing !== undefined) return { accountId: existing, created: false };
    try {
      return { accountId: await openAccount(db, { displayName }, { kind, externalId }), created: true };
    } catch (err: unknown) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw new Error(`identity ${kind} could not be resolved after concurrent creation`);
}

function assertMayAct(account: AccountState | undefined, now: Date): void {
  if (!account || account.status === 'deleted') throw new DomainError('session_invalid', 'the account no longer exists');
  if (isSuspended(account, now)) throw new DomainError('account_suspended', 'the account is suspended');
}

async function grant(deps: SessionDeps, accountId: bigint, platform: SessionPlatform, created: boolean): Promise<SessionGrantView> {
  const now = deps.now();
  assertMayAct(await findAccount(deps.db, accountId), now);
  const session = await insertSession(deps.db, accountId, platform, deps.settings.sessionTtlHours, now);
  deps.logger.info({ accountId: String(accountId), kind: platform.kind, subtype: platform.subtype, created }, 'session opened');
  return { token: session.token, accountId, platform, expiresAt: session.expiresAt, accountCreated: created };
}

/** Telegram Mini App session: kind telegram, no subtype (Telegram does not sign the client platform). */
export async function openTelegramSession(deps: SessionDeps, initData: string): Promise<SessionGrantView> {
  const botToken = deps.settings.telegramBotToken;
  if (botToken === undefined) throw new DomainError('platform_not_configured', 'telegram sign-in is not configured');
  const launch = verifyTelegramInitData(initData, botToken, secondsOf(deps.now()), deps.settings.launchDataMaxAgeSeconds);
  const { accountId, created } = await accountForIdentity(deps.db, 'telegram', launch.userId, launch.displayName);
  return grant(deps, accountId, { kind: 'telegram', subtype: null }, created);
}

/** Longest part of an unknown vk_platform value written to the log. */
const LOGGED_VK_PLATFORM_CHARS = 40;

/**
 * VK Mini App session: kind vk, subtype from the signed vk_platform. A missing or undocumented
 * value records no subtype, which the gate freezes (fail closed); it is logged as a warning with
 * the value truncated, so a new VK client shows up in the logs instead of spending.
 */
export async function openVkSession(deps: SessionDeps, launchParams: string): Promise<SessionGrantView> {
  const secret = deps.settings.vkAppSecret;
  if (secret === undefined) throw new DomainError('platform_not_configured', 'vk sign-in is not configured');
  const launch = verifyVkLaunchParams(launchParams, secret, secondsOf(deps.now()), deps.settings.launchDataMaxAgeSeconds);
  const { accountId, created } = await accountForIdentity(deps.db, 'vk', launch.userId, '');
  const opened = await grant(deps, accountId, { kind: 'vk', subtype: launch.subtype }, created);
  if (launch.subtype === null) {
    const vkPlatform = launch.vkPlatform === null ? null : [...launch.vkPlatform].slice(0, LOGGED_VK_PLATFORM_CHARS).join('');
    deps.logger.warn({ accountId: String(accountId), vkPlatform }, 'vk_platform missing or unknown: the vk session is frozen');
  }
  return opened;
}

/** Direct sign-up or sign-in with e-mail and password; subtype best-effort from the client hint. */
export async function openDirectSession(
  deps: SessionDeps,
  input: { email: string | null; password: string | null; mode: string | null; subtypeHint: string | null },
  address: string | null = null,
): Promise<SessionGrantView> {
  if (input.mode !== 'signup' && input.mode !== 'signin') throw new DomainError('invalid_mode', 'mode must be signup or signin');
  const email = normalizeEmail(input.email);
  const password = input.password ?? '';
  const hint = input.subtypeHint ?? '';
  const platform: SessionPlatform = { kind: 'direct', subtype: isPlatformSubtype(hint) ? hint : null };

  if (input.mode === 'signin') {
    const attempt = await deps.limits.directSignIn.begin(email, address);
    const account = await findAccountByEmail(deps.db, email);
    const ok = await verifyPassword(password, account?.password_hash ?? null);
    if (!account || !ok) {
      const outcome = attempt.failed();
      if (outcome.loginLocked || outcome.addressLocked)
        deps.logger.warn({ login: outcome.loginLocked, address: outcome.addressLocked }, 'direct sign-in locked out');
      throw new DomainError('invalid_credentials', 'e-mail or password is wrong');
    }
    await attempt.succeeded();
    return grant(deps, account.id, platform, false);
  }

  if ([...password].length < 8 || [...password].length > 256) {
    throw new DomainError('invalid_password', 'the password must be 8-256 characters');
  }
  // A sign-up mails its address: an address that is taken mails nothing and costs no unit; one whose
  // mail allowance is spent is refused before the account exists (never an account whose mail was dropped).
  if (await findAccountByEmail(deps.db, email)) throw new DomainError('email_taken', 'an account with this e-mail already exists');
  const permit = await permitConfirmationMail(deps.limits.confirmationRecipient, email);
  const passwordHash = await hashPassword(password);
  let accountId: bigint;
  try {
    accountId = await openAccount(deps.db, { displayName: email.split('@')[0]?.slice(0, 64) ?? '', email, passwordHash });
  } catch (err: unknown) {
    if (isUniqueViolation(err)) throw new DomainError('email_taken', 'an account with this e-mail already exists');
    throw err;
  }
  await requestConfirmation(deps, accountId, permit);
  return grant(deps, accountId, platform, true);
}

/** The live session a token names; unknown, expired or deleted-account sessions are `session_invalid`. */
export async function resolveSession(db: Kysely<DB>, token: string, now: Date): Promise<SessionInfoView> {
  const row = token.length > 0 && token.length <= 256 ? await findLiveSession(db, token, now) : undefined;
  if (!row) throw new DomainError('session_invalid', 'the session is unknown or expired');
  assertMayAct(row, now);
  return { accountId: row.account_id, platform: { kind: row.platform_kind, subtype: row.platform_subtype }, expiresAt: row.expires_at };
}

/** Ends a session; false when the token named none. */
export function closeSession(db: Kysely<DB>, token: string): Promise<boolean> {
  return token.length > 0 && token.length <= 256 ? deleteSession(db, token) : Promise.resolve(false);
}
