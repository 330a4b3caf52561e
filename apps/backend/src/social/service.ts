import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { softDeleteAccount } from './delete-account.js';
import { type GameDeps, loadGame } from '../game/index.js';
import { writerFrom } from '../rpc/index.js';
import { block, unblock } from './blocks.js';
import { acceptFriendRequest, sendFriendRequest, type FriendshipStatus } from './friends.js';
import { telegramIdentities } from './store.js';

function targetOf(body: Uint8Array): bigint {
  return decodeTable(
    body,
    (bb) => fb.SocialTarget.getRootAsSocialTarget(bb),
    (t) => t.accountId(),
  );
}

function friendship(accountId: bigint, status: FriendshipStatus): Uint8Array {
  return encodeTable((b) => fb.FriendshipView.createFriendshipView(b, accountId, b.createString(status)));
}

function blockView(accountId: bigint, blocked: boolean): Uint8Array {
  return encodeTable((b) => fb.BlockView.createBlockView(b, accountId, blocked));
}

/**
 * A deleted account may no longer write in the moderated chat: sends ChatGateCommand allow=false
 * for each of its telegram identities (the bot's platform), after the commit. Best-effort and at
 * most once like every chat gate command; the outcome is logged, never awaited by the caller.
 */
async function revokeChat(deps: GameDeps, accountId: bigint): Promise<void> {
  for (const externalId of await telegramIdentities(deps.db, accountId)) {
    const outcome = await deps.chatGate.send(externalId, false);
    deps.logger.info(
      { accountId: String(accountId), allow: false, outcome: outcome.status, reason: 'account_deleted' },
      'chat gate command sent',
    );
  }
}

/**
 * backend.v1.SocialService: friend requests, blocks and the caller's own soft delete. Every method
 * writes, so each needs a trusted session (writerFrom: `untrusted_session` otherwise).
 */
export function socialService(deps: GameDeps): ServiceImpl<typeof backendApi.SocialService> {
  return {
    async sendFriendRequest(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const target = targetOf(req.body);
      return { body: friendship(target, await sendFriendRequest(deps, caller.accountId, target)) };
    },
    async acceptFriendRequest(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const target = targetOf(req.body);
      return { body: friendship(target, await acceptFriendRequest(deps, caller.accountId, target)) };
    },
    async block(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const target = targetOf(req.body);
      await block(deps, caller.accountId, target);
      return { body: blockView(target, true) };
    },
    async unblock(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const target = targetOf(req.body);
      await unblock(deps, caller.accountId, target);
      return { body: blockView(target, false) };
    },
    async deleteAccount(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      decodeTable(
        req.body,
        (bb) => fb.AccountDeletion.getRootAsAccountDeletion(bb),
        () => undefined,
      );
      const done = await softDeleteAccount(deps.db, caller.accountId, deps.now());
      for (const { gameId, seat } of done.forfeited) {
        const game = await loadGame(deps.db, gameId);
        if (game) deps.bus.publish(gameId, { kind: 'deleted', game, seat });
      }
      void revokeChat(deps, caller.accountId).catch((err: unknown) =>
        deps.logger.warn({ err, accountId: String(caller.accountId) }, 'chat gate revocation failed'),
      );
      deps.logger.info(
        { accountId: String(caller.accountId), sessionsRevoked: done.sessionsRevoked, gamesForfeited: done.forfeited.length },
        'account deleted',
      );
      return { body: encodeTable((b) => fb.AccountDeleted.createAccountDeleted(b, caller.accountId, done.sessionsRevoked)) };
    },
  };
}
