import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { Request } from 'express';
import { z } from 'zod';
import { type CachingSessionResolver, bearerToken } from '../../auth/index.js';
import type { BackendClients } from '../../backend/index.js';
import type { Operation } from '../operation.js';
import { idParam, jsonBody, parseInput } from '../validation.js';
import { blockWire, friendshipWire } from './wire.js';

const targetBody = z.object({ account_id: idParam }).strict();
const targetPath = z.object({ account_id: idParam });

function targetParam(req: Request): bigint {
  return parseInput(targetPath, req.params, 'invalid_target').account_id;
}

const targetErrors = ['invalid_target', 'unknown_account', 'account_deleted'] as const;

const target = (accountId: bigint) => encodeTable((b) => fb.SocialTarget.createSocialTarget(b, accountId));

function readFriendship(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.FriendshipView.getRootAsFriendshipView(bb),
    (t) => ({ account_id: t.accountId(), status: t.status() ?? '' }),
  );
}

function readBlock(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.BlockView.getRootAsBlockView(bb),
    (t) => ({ account_id: t.accountId(), blocked: t.blocked() }),
  );
}

/**
 * The social layer (friend requests, blocks) and the caller's own account deletion, all writes:
 * trusted sessions only (a view-only session is 403 `untrusted_session`). An action aimed at
 * a deleted account is 410 `account_deleted`. After a deletion every session of the account is
 * revoked in the backend; this replica forgets the caller's token at once, others within their
 * session cache TTL.
 */
export function socialOperations(backend: BackendClients, sessions: CachingSessionResolver): Operation[] {
  return [
    {
      name: 'social.friend_request',
      method: 'post',
      path: '/api/v1/social/friend-requests',
      auth: 'trusted_session',
      doc: {
        tag: 'social',
        summary: 'Ask another account for friendship',
        body: targetBody,
        examples: { ask: { account_id: '42' } },
        success: { status: 200, description: 'The friendship as it stands.', body: friendshipWire },
        errors: [...targetErrors, 'blocked'],
      },
      async handle({ req, call }) {
        const { account_id } = parseInput(targetBody, jsonBody(req), 'invalid_target');
        const friendship = readFriendship((await backend.social.sendFriendRequest({ body: target(account_id) }, call)).body);
        return { status: 200, body: friendship };
      },
    },
    {
      name: 'social.friend_accept',
      method: 'post',
      path: '/api/v1/social/friend-requests/:account_id/accept',
      auth: 'trusted_session',
      doc: {
        tag: 'social',
        summary: 'Accept a friend request',
        params: targetPath,
        success: { status: 200, description: 'The friendship.', body: friendshipWire },
        errors: [...targetErrors, 'unknown_friend_request', 'blocked'],
      },
      async handle({ req, call }) {
        return {
          status: 200,
          body: readFriendship((await backend.social.acceptFriendRequest({ body: target(targetParam(req)) }, call)).body),
        };
      },
    },
    {
      name: 'social.block',
      method: 'put',
      path: '/api/v1/social/blocks/:account_id',
      auth: 'trusted_session',
      doc: {
        tag: 'social',
        summary: 'Block an account',
        params: targetPath,
        success: { status: 200, description: 'The block.', body: blockWire },
        errors: targetErrors,
      },
      async handle({ req, call }) {
        return { status: 200, body: readBlock((await backend.social.block({ body: target(targetParam(req)) }, call)).body) };
      },
    },
    {
      name: 'social.unblock',
      method: 'delete',
      path: '/api/v1/social/blocks/:account_id',
      auth: 'trusted_session',
      doc: {
        tag: 'social',
        summary: 'Lift a block',
        params: targetPath,
        success: { status: 204, description: 'Lifted.' },
        errors: targetErrors,
      },
      async handle({ req, call }) {
        await backend.social.unblock({ body: target(targetParam(req)) }, call);
        return { status: 204 };
      },
    },
    {
      name: 'account.delete',
      method: 'delete',
      path: '/api/v1/user/account',
      auth: 'trusted_session',
      doc: {
        tag: 'profile',
        summary: "Delete the caller's account",
        description: 'Every session of the account is revoked.',
        success: { status: 204, description: 'Deleted.' },
        errors: [],
      },
      async handle({ req, call }) {
        await backend.social.deleteAccount({ body: encodeTable((b) => fb.AccountDeletion.createAccountDeletion(b)) }, call);
        const token = bearerToken(req);
        if (token !== undefined) sessions.forget(token);
        return { status: 204 };
      },
    },
  ];
}
