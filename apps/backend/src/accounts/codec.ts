import { encodeTable, fb } from '@wordgame/contracts';
import { stringVector, unixSeconds } from '../rpc/index.js';
import type { SessionGrantView, SessionInfoView } from './sessions/open.js';
import type { ProfileView } from './profile.js';

/** FlatBuffers body of a SessionGrant. */
export function encodeSessionGrant(g: SessionGrantView): Uint8Array {
  return encodeTable((b) => {
    const token = b.createString(g.token);
    const kind = b.createString(g.platform.kind ?? '');
    const subtype = b.createString(g.platform.subtype ?? '');
    return fb.SessionGrant.createSessionGrant(b, token, g.accountId, kind, subtype, unixSeconds(g.expiresAt), g.accountCreated);
  });
}

/** FlatBuffers body of a SessionInfo (empty kind = untrusted session). */
export function encodeSessionInfo(s: SessionInfoView): Uint8Array {
  return encodeTable((b) => {
    const kind = b.createString(s.platform.kind ?? '');
    const subtype = b.createString(s.platform.subtype ?? '');
    return fb.SessionInfo.createSessionInfo(b, s.accountId, kind, subtype, unixSeconds(s.expiresAt));
  });
}

/** FlatBuffers body of a Profile. */
export function encodeProfile(p: ProfileView): Uint8Array {
  return encodeTable((b) => {
    const name = b.createString(p.displayName);
    const email = b.createString(p.email ?? '');
    const pending = b.createString(p.pendingEmail ?? '');
    const kind = b.createString(p.platform.kind ?? '');
    const subtype = b.createString(p.platform.subtype ?? '');
    const providers = stringVector(b, p.signInProviders, (bb, d) => fb.Profile.createSignInProvidersVector(bb, d));
    const linked = stringVector(b, p.linkedPlatforms, (bb, d) => fb.Profile.createLinkedPlatformsVector(bb, d));
    return fb.Profile.createProfile(b, p.accountId, name, email, p.emailConfirmed, pending, kind, subtype, providers, linked);
  });
}
