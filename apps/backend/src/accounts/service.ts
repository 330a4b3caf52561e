import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { clientAddressOf } from '../limits/index.js';
import { callerFrom, writerFrom } from '../rpc/index.js';
import { closeSession, openDirectSession, openTelegramSession, openVkSession, resolveSession, type SessionDeps } from './sessions/open.js';
import { encodeProfile, encodeSessionGrant, encodeSessionInfo } from './codec.js';
import { confirmEmail } from './confirmation.js';
import { getProfile, updateProfile } from './profile.js';

/**
 * backend.v1.AccountService: sessions (kind fixed by the method), profile, e-mail confirmation.
 * A profile change needs a trusted session (writerFrom); reading the profile does not.
 */
export function accountService(deps: SessionDeps): ServiceImpl<typeof backendApi.AccountService> {
  return {
    async openTelegramSession(req) {
      const initData = decodeTable(
        req.body,
        (bb) => fb.TelegramSessionOpen.getRootAsTelegramSessionOpen(bb),
        (t) => t.initData() ?? '',
      );
      return { body: encodeSessionGrant(await openTelegramSession(deps, initData)) };
    },
    async openVkSession(req) {
      const params = decodeTable(
        req.body,
        (bb) => fb.VkSessionOpen.getRootAsVkSessionOpen(bb),
        (t) => t.launchParams() ?? '',
      );
      return { body: encodeSessionGrant(await openVkSession(deps, params)) };
    },
    async openDirectSession(req, ctx) {
      const input = decodeTable(
        req.body,
        (bb) => fb.DirectSessionOpen.getRootAsDirectSessionOpen(bb),
        (t) => ({
          email: t.email(),
          password: t.password(),
          mode: t.mode(),
          subtypeHint: t.subtypeHint(),
        }),
      );
      return { body: encodeSessionGrant(await openDirectSession(deps, input, clientAddressOf(ctx.requestHeader))) };
    },
    async resolveSession(req) {
      const token = decodeTable(
        req.body,
        (bb) => fb.SessionLookup.getRootAsSessionLookup(bb),
        (t) => t.token() ?? '',
      );
      return { body: encodeSessionInfo(await resolveSession(deps.db, token, deps.now())) };
    },
    async closeSession(req) {
      const token = decodeTable(
        req.body,
        (bb) => fb.SessionClose.getRootAsSessionClose(bb),
        (t) => t.token() ?? '',
      );
      const closed = await closeSession(deps.db, token);
      return { body: encodeTable((b) => fb.SessionClosed.createSessionClosed(b, closed)) };
    },
    async getProfile(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      decodeTable(
        req.body,
        (bb) => fb.ProfileQuery.getRootAsProfileQuery(bb),
        () => undefined,
      );
      return { body: encodeProfile(await getProfile(deps, caller)) };
    },
    async updateProfile(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const change = decodeTable(
        req.body,
        (bb) => fb.ProfileUpdate.getRootAsProfileUpdate(bb),
        (t) => ({
          displayName: t.displayName(),
          email: t.email(),
        }),
      );
      return { body: encodeProfile(await updateProfile(deps, caller, change, clientAddressOf(ctx.requestHeader))) };
    },
    async confirmEmail(req) {
      const token = decodeTable(
        req.body,
        (bb) => fb.EmailConfirmation.getRootAsEmailConfirmation(bb),
        (t) => t.token() ?? '',
      );
      const confirmed = await confirmEmail(deps.db, token, deps.now());
      return {
        body: encodeTable((b) => fb.EmailConfirmed.createEmailConfirmed(b, confirmed.accountId, b.createString(confirmed.email))),
      };
    },
  };
}
