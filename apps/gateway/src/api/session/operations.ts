import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import { bearerToken, type CachingSessionResolver } from '../../auth/index.js';
import { PLATFORM_SUBTYPES, asPlatformKind, asPlatformSubtype, ApiError } from '../../http/index.js';
import type { BackendClients } from '../../backend/index.js';
import type { Operation } from '../operation.js';
import { isoFromUnix } from '../fbs-read.js';
import { byField, jsonBody, parseInput } from '../validation.js';
import { sessionGrantWire, type SessionGrantJson } from './wire.js';

const launchString = z.string().min(1, 'must not be empty').max(8192, 'is too long');

const telegramBody = z.object({ init_data: launchString }).strict();
const vkBody = z.object({ launch_params: launchString }).strict();
const directBody = z
  .object({
    email: z.email('must be an e-mail address').max(254),
    password: z.string().min(1, 'must not be empty').max(256, 'is too long'),
    mode: z.enum(['signup', 'signin']),
    subtype: z.enum(PLATFORM_SUBTYPES).optional(),
  })
  .strict();

function readGrant(body: Uint8Array): SessionGrantJson {
  return decodeTable(
    body,
    (bb) => fb.SessionGrant.getRootAsSessionGrant(bb),
    (t) => ({
      token: t.token() ?? '',
      expires_at: isoFromUnix(t.expiresAtUnix()),
      platform: { kind: asPlatformKind(t.platformKind() ?? ''), subtype: asPlatformSubtype(t.platformSubtype() ?? '') },
      account_id: t.accountId(),
      account_created: t.accountCreated(),
    }),
  );
}

/**
 * Session endpoints. The platform kind is fixed by which endpoint is called (the backend method),
 * never by a client field; only the direct endpoint takes a best-effort subtype hint.
 */
export function sessionOperations(backend: BackendClients, sessions: CachingSessionResolver): Operation[] {
  return [
    {
      name: 'session.telegram',
      method: 'post',
      path: '/api/v1/session/telegram',
      auth: 'none',
      doc: {
        tag: 'session',
        summary: 'Open a session from Telegram mini-app launch data',
        description: 'The signed `initData` of the mini-app; the session records platform telegram (trusted).',
        body: telegramBody,
        examples: { launch: { init_data: 'query_id=AAH&user=%7B%22id%22%3A42%7D&auth_date=1764100000&hash=5f1c0d' } },
        success: { status: 200, description: 'The session grant.', body: sessionGrantWire },
        errors: ['launch_data_invalid', 'launch_data_stale', 'account_suspended', 'platform_not_configured'],
      },
      async handle({ req, call }) {
        const input = parseInput(telegramBody, jsonBody(req));
        const body = encodeTable((b) => fb.TelegramSessionOpen.createTelegramSessionOpen(b, b.createString(input.init_data), 0));
        return { status: 200, body: readGrant((await backend.account.openTelegramSession({ body }, call)).body) };
      },
    },
    {
      name: 'session.vk',
      method: 'post',
      path: '/api/v1/session/vk',
      auth: 'none',
      doc: {
        tag: 'session',
        summary: 'Open a session from VK mini-app launch parameters',
        description: 'The signed launch query string; the session records platform vk (trusted).',
        body: vkBody,
        examples: { launch: { launch_params: 'vk_app_id=1&vk_user_id=42&vk_ts=1764100000&sign=abc' } },
        success: { status: 200, description: 'The session grant.', body: sessionGrantWire },
        errors: ['launch_data_invalid', 'launch_data_stale', 'account_suspended', 'platform_not_configured'],
      },
      async handle({ req, call }) {
        const input = parseInput(vkBody, jsonBody(req));
        const body = encodeTable((b) => fb.VkSessionOpen.createVkSessionOpen(b, b.createString(input.launch_params)));
        return { status: 200, body: readGrant((await backend.account.openVkSession({ body }, call)).body) };
      },
    },
    {
      name: 'session.direct',
      method: 'post',
      path: '/api/v1/session/direct',
      auth: 'none',
      doc: {
        tag: 'session',
        summary: 'Sign up or sign in with e-mail and password',
        description: '`subtype` is a best-effort hint of the client (ios, android, web).',
        body: directBody,
        examples: {
          signup: { email: 'player@example.com', password: 'correct horse battery', mode: 'signup', subtype: 'web' },
          signin: { email: 'player@example.com', password: 'correct horse battery', mode: 'signin' },
        },
        success: { status: 200, description: 'The session grant.', body: sessionGrantWire },
        errors: [
          'invalid_email',
          'invalid_password',
          'invalid_mode',
          'invalid_credentials',
          'email_taken',
          'account_suspended',
          'rate_limited',
        ],
      },
      async handle({ req, call }) {
        const input = parseInput(
          directBody,
          jsonBody(req),
          byField({ email: 'invalid_email', password: 'invalid_password', mode: 'invalid_mode' }),
        );
        const body = encodeTable((b) =>
          fb.DirectSessionOpen.createDirectSessionOpen(
            b,
            b.createString(input.email),
            b.createString(input.password),
            b.createString(input.mode),
            b.createString(input.subtype ?? ''),
          ),
        );
        return { status: 200, body: readGrant((await backend.account.openDirectSession({ body }, call)).body) };
      },
    },
    {
      name: 'session.close',
      method: 'delete',
      path: '/api/v1/session',
      auth: 'session',
      doc: { tag: 'session', summary: "Close the caller's session", success: { status: 204, description: 'Closed.' }, errors: [] },
      async handle({ req, call }) {
        const token = bearerToken(req);
        if (token === undefined) throw new ApiError('unauthenticated');
        sessions.forget(token);
        await backend.account.closeSession(
          { body: encodeTable((b) => fb.SessionClose.createSessionClose(b, b.createString(token))) },
          call,
        );
        sessions.forget(token);
        return { status: 204 };
      },
    },
  ];
}
