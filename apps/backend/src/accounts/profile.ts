import type { Limits } from '../limits/index.js';
import { type Caller, DomainError } from '../rpc/index.js';
import { gate, type SessionPlatform } from '../gate/index.js';
import { permitConfirmationMail, requestConfirmation, type ConfirmationDeps, type ConfirmationPermit } from './confirmation.js';
import { normalizeEmail } from './email.js';
import { emailHolder, findAccount, linkedPlatforms, newestPendingEmail, setDisplayName } from './accounts.store.js';

/** A profile as the caller's context may see it. */
export interface ProfileView {
  accountId: bigint;
  displayName: string;
  email: string | null;
  emailConfirmed: boolean;
  pendingEmail: string | null;
  platform: SessionPlatform;
  signInProviders: readonly string[];
  linkedPlatforms: readonly string[];
}

/** The caller's profile; sign-in providers come from the gate (inside a host only e-mail). */
export async function getProfile(deps: ConfirmationDeps, caller: Caller): Promise<ProfileView> {
  const account = await findAccount(deps.db, caller.accountId);
  if (!account || account.status === 'deleted') throw new DomainError('caller_required', 'the caller account does not exist');
  const pending = await newestPendingEmail(deps.db, caller.accountId, deps.now());
  const confirmed = account.email_confirmed_at !== null;
  return {
    accountId: account.id,
    displayName: account.display_name,
    email: account.email,
    emailConfirmed: confirmed,
    pendingEmail: pending,
    platform: caller.platform,
    signInProviders: gate({ ...caller.platform, emailConfirmed: confirmed }).signInProviders,
    linkedPlatforms: await linkedPlatforms(deps.db, caller.accountId),
  };
}

/** Validates a display name: 1-64 characters after trimming, no control characters. */
export function normalizeDisplayName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0 || [...name].length > 64 || /[\u0000-\u001f\u007f-\u009f]/.test(name)) {
    throw new DomainError('invalid_display_name', 'the display name must be 1-64 printable characters');
  }
  return name;
}

/**
 * Applies a profile change: a new display name, and/or an e-mail to link, which is stored as
 * pending and confirmed through a mailed link. Linking the address the account already has
 * confirmed changes nothing; an address another account holds is `email_in_use`. Each mailed link
 * takes one unit of the confirmation-mail quotas (per account and client address, and per recipient
 * address): `rate_limited`.
 */
export async function updateProfile(
  deps: ConfirmationDeps & { limits: Pick<Limits, 'confirmationMail' | 'confirmationRecipient'> },
  caller: Caller,
  change: { displayName: string | null; email: string | null },
  address: string | null = null,
): Promise<ProfileView> {
  const displayName = change.displayName === null ? null : normalizeDisplayName(change.displayName);
  const email = change.email === null ? null : normalizeEmail(change.email);
  const account = await findAccount(deps.db, caller.accountId);
  if (!account || account.status === 'deleted') throw new DomainError('caller_required', 'the caller account does not exist');

  let permit: ConfirmationPermit | null = null;
  if (email !== null && !(email === account.email && account.email_confirmed_at !== null)) {
    const holder = await emailHolder(deps.db, email);
    if (holder !== undefined && holder !== account.id)
      throw new DomainError('email_in_use', 'this e-mail address belongs to another account');
    // Counted before anything changes: a refused change leaves the profile as it was.
    await deps.limits.confirmationMail.take(account.id, address);
    permit = await permitConfirmationMail(deps.limits.confirmationRecipient, email);
  }
  if (displayName !== null) {
    await setDisplayName(deps.db, account.id, displayName);
  }
  if (permit !== null) await requestConfirmation(deps, account.id, permit);
  return getProfile(deps, caller);
}
