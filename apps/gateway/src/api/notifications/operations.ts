import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { Request } from 'express';
import { PROVIDERS, type BackendClients } from '../../backend/index.js';
import { z } from 'zod';
import { ApiError } from '../../http/index.js';
import type { Operation } from '../operation.js';

/** Where providers post notifications; the last segment names the backend's provider adapter. */
export const NOTIFICATIONS_PATH = '/api/v1/payments/notifications';

/** Largest notification body read (YooKassa's are under 16 KiB); larger is 413 `body_too_large`. */
export const NOTIFICATION_BODY_LIMIT = '64kb';

/** A notification as the route reads it: the raw bytes, plus its event and object id for logs only. */
interface RawNotification {
  bytes: Uint8Array;
  event: string | undefined;
  objectId: string | undefined;
}

/** A notification body: any JSON object (the backend re-reads the payment, so its fields are only hints). */
const notificationBody = z.record(z.string(), z.unknown());

/** A short string field of untrusted JSON, for logs. */
function logField(value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, 128) : undefined;
}

/**
 * The raw bytes of a notification, as read by the route's raw body parser (app.ts). They must be
 * a JSON object (every provider posts one), else 400 `malformed_notification` before the backend.
 */
function readNotification(req: Request): RawNotification {
  const raw: unknown = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw new ApiError('malformed_notification');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('malformed_notification');
  }
  const checked = notificationBody.safeParse(parsed);
  if (!checked.success) throw new ApiError('malformed_notification');
  const { event, object } = checked.data;
  const objectId = typeof object === 'object' && object !== null ? logField((object as { id?: unknown }).id) : undefined;
  return { bytes: raw, event: logField(event), objectId };
}

/**
 * The provider notification route (`payments.notification.<provider>`): no authentication and no
 * sender-address check, because a notification is only a hint the backend re-reads from the
 * provider. The raw body goes to NotificationService.Intake (a wire name kept from before; the backend's
 * handleNotification) unchanged. Answers 200 (empty) once
 * the backend handled or ignored it; the disposition is logged, never told to the sender. 503 when
 * the backend could not decide or is down, so the provider redelivers.
 */
export function notificationOperations(backend: BackendClients): Operation[] {
  return PROVIDERS.map(
    (provider): Operation => ({
      name: `payments.notification.${provider}`,
      method: 'post',
      path: `${NOTIFICATIONS_PATH}/${provider}`,
      auth: 'none',
      doc: {
        tag: 'payments',
        summary: `Payment notification from ${provider}`,
        description: 'The raw body goes to the backend, which re-reads the payment from the provider. 503 asks the provider to redeliver.',
        body: notificationBody,
        rawBody: true,
        examples: {
          succeeded: {
            type: 'notification',
            event: 'payment.succeeded',
            object: {
              id: '2f8b1c4e-000f-5000-8000-1a2b3c4d5e6f',
              status: 'succeeded',
              paid: true,
              amount: { value: '99.00', currency: 'RUB' },
            },
          },
        },
        success: { status: 200, description: 'Handled or ignored (empty body).' },
        errors: ['malformed_notification', 'intake_unavailable'],
      },
      async handle({ req, log, call }) {
        const notification = readNotification(req);
        const body = encodeTable((b) => {
          const name = b.createString(provider);
          const raw = fb.ProviderNotification.createBodyVector(b, notification.bytes);
          return fb.ProviderNotification.createProviderNotification(b, name, raw);
        }, notification.bytes.length + 64);
        const res = await backend.notification.intake({ body }, call);
        const outcome = decodeTable(
          res.body,
          (bb) => fb.NotificationDisposition.getRootAsNotificationDisposition(bb),
          (t) => ({
            disposition: t.disposition() ?? '',
            detail: t.detail() ?? '',
          }),
        );
        log.info({ provider, event: notification.event, objectId: notification.objectId, ...outcome }, 'provider notification');
        return { status: 200 };
      },
    }),
  );
}
