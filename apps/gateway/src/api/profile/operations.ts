import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import { asPlatformKind, asPlatformSubtype } from '../../http/index.js';
import type { BackendClients } from '../../backend/index.js';
import type { Operation } from '../operation.js';
import { readStrings } from '../fbs-read.js';
import { byField, jsonBody, parseInput, text } from '../validation.js';
import { profileWire, type ProfileJson } from './wire.js';

const updateBody = z
  .object({
    display_name: text(64).min(1, 'must not be empty').optional(),
    email: z.email('must be an e-mail address').max(254).optional(),
  })
  .strict()
  .refine((v) => v.display_name !== undefined || v.email !== undefined, 'give display_name and/or email');

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

/**
 * Profile endpoints: read the caller's profile (any session) and change it (a trusted session: a
 * view-only one is 403 `untrusted_session`). A linked e-mail is confirmed on the page its mailed
 * link opens (wallet-page/confirm-page.ts), never by a JSON call.
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
  ];
}
