import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import { asPlatformKind, asPlatformSubtype } from '../../http/session.js';
import type { BackendClients } from '../../backend/client.js';
import type { Operation } from '../operation.js';
import { readStrings } from '../fbs-read.js';
import { byField, jsonBody, parseInput, text } from '../validation.js';
import { emailConfirmedWire, profileWire, type ProfileJson } from './wire.js';

const updateBody = z
  .object({
    display_name: text(64).min(1, 'must not be empty').optional(),
    email: z.email('must be an e-mail address').max(254).optional(),
  })
  .strict()
  .refine((v) => v.display_name !== undefined || v.email !== undefined, 'give display_name and/or email');

const confirmToken = z.string().min(1, 'must not be empty').max(512, 'is too long');
const confirmQuery = z.object({ token: confirmToken });
const confirmBody = z.object({ token: confirmToken }).strict();

function readProfile(body: Uint8Array): ProfileJson {
  return decodeTable(
    body,
    (bb) => fb.Profile.getRootAsProfile(bb),
    (t) => ({
      account_id: t.accountId(),
      display_name: t.displayName() ?? '',
      email: t.email() || null,
      email_confirmed: t.emailConfirmed(),
      pending_email: t.pendingEmail() || null,
      platform: { kind: asPlatformKind(t.platformKind() ?? ''), subtype: asPlatformSubtype(t.platformSubtype() ?? '') },
      sign_in_providers: readStrings(t.signInProvidersLength(), (i) => t.signInProviders(i)),
      linked_platforms: readStrings(t.linkedPlatformsLength(), (i) => t.linkedPlatforms(i)),
    }),
  );
}

function confirm(backend: BackendClients, token: string, call: Parameters<BackendClients['account']['confirmEmail']>[1]) {
  return backend.account
    .confirmEmail({ body: encodeTable((b) => fb.EmailConfirmation.createEmailConfirmation(b, b.createString(token))) }, call)
    .then(({ body }) =>
      decodeTable(
        body,
        (bb) => fb.EmailConfirmed.getRootAsEmailConfirmed(bb),
        (t) => ({ account_id: t.accountId(), email: t.email() ?? '' }),
      ),
    );
}

/**
 * Profile endpoints: read the caller's profile (any session), change it (a trusted session: a
 * view-only one is 403 `untrusted_session`), and confirm a linked e-mail from its mailed token.
 */
export function profileOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'profile.get',
      method: 'get',
      path: '/api/v1/user/profile',
      auth: 'session',
      doc: {
        tag: 'profile',
        summary: "The caller's profile",
        success: { status: 200, description: 'The profile.', body: profileWire },
        errors: [],
      },
      async handle({ call }) {
        const body = encodeTable((b) => fb.ProfileQuery.createProfileQuery(b));
        return { status: 200, body: readProfile((await backend.account.getProfile({ body }, call)).body) };
      },
    },
    {
      name: 'profile.update',
      method: 'patch',
      path: '/api/v1/user/profile',
      auth: 'trusted_session',
      doc: {
        tag: 'profile',
        summary: 'Change the display name and/or link an e-mail',
        description: 'A new e-mail is pending until confirmed from the mailed link.',
        body: updateBody,
        examples: { name: { display_name: 'Wordsmith' }, email: { email: 'player@example.com' } },
        success: { status: 200, description: 'The profile after the change.', body: profileWire },
        errors: ['invalid_display_name', 'invalid_email', 'email_in_use', 'rate_limited'],
      },
      async handle({ req, call }) {
        const input = parseInput(updateBody, jsonBody(req), byField({ display_name: 'invalid_display_name', email: 'invalid_email' }));
        const body = encodeTable((b) =>
          fb.ProfileUpdate.createProfileUpdate(
            b,
            input.display_name === undefined ? 0 : b.createString(input.display_name),
            input.email === undefined ? 0 : b.createString(input.email),
          ),
        );
        return { status: 200, body: readProfile((await backend.account.updateProfile({ body }, call)).body) };
      },
    },
    {
      name: 'profile.confirm_email',
      method: 'get',
      path: '/api/v1/user/profile/confirm-email',
      auth: 'none',
      doc: {
        tag: 'profile',
        summary: 'Confirm a linked e-mail (the mailed link)',
        query: confirmQuery,
        success: { status: 200, description: 'The confirmed e-mail.', body: emailConfirmedWire },
        errors: ['confirmation_invalid', 'email_in_use'],
      },
      async handle({ req, call }) {
        const { token } = parseInput(confirmQuery, req.query, 'confirmation_invalid');
        return { status: 200, body: await confirm(backend, token, call) };
      },
    },
    {
      name: 'profile.confirm_email',
      method: 'post',
      path: '/api/v1/user/profile/confirm-email',
      auth: 'none',
      doc: {
        tag: 'profile',
        summary: 'Confirm a linked e-mail with the mailed token',
        body: confirmBody,
        examples: { token: { token: 'k3Jx9c2Qe1' } },
        success: { status: 200, description: 'The confirmed e-mail.', body: emailConfirmedWire },
        errors: ['confirmation_invalid', 'email_in_use'],
      },
      async handle({ req, call }) {
        const { token } = parseInput(confirmBody, jsonBody(req), 'confirmation_invalid');
        return { status: 200, body: await confirm(backend, token, call) };
      },
    },
  ];
}
