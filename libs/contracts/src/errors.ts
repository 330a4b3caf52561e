import { Code, ConnectError } from '@connectrpc/connect';

/**
 * Who may see a code as it is:
 * - `client`: raised by the backend; the REST edge answers it with the backend's (user-safe) message;
 * - `service`: raised by the backend for a trusted caller (the gateway's own mistakes, the operator
 *   console, bot intake); the REST edge answers it by its Connect code instead, never by name;
 * - `edge`: raised by an edge itself (the REST edge's own refusals, the backend's error edge for a
 *   failure it hides), never by a DomainError.
 */
export type ErrorAudience = 'client' | 'service' | 'edge';

/** One domain error: its Connect code, its HTTP status at the REST edge, a client-safe default message. */
export interface ErrorSpec {
  readonly connect: Code;
  readonly http: number;
  readonly message: string;
  readonly audience: ErrorAudience;
}

function spec<A extends ErrorAudience>(connect: Code, http: number, audience: A, message: string): ErrorSpec & { readonly audience: A } {
  return { connect, http, message, audience };
}

const {
  InvalidArgument,
  Unauthenticated,
  PermissionDenied,
  NotFound,
  AlreadyExists,
  FailedPrecondition,
  ResourceExhausted,
  Unavailable,
  Internal,
  Aborted,
} = Code;

/**
 * The closed set of domain error codes shared by the backend and the gateway, each defined once.
 * docs/reference/errors.md is generated from it (`npm run docs:reference`; a test fails on drift).
 */
export const ERRORS = {
  // requests the edge or the backend cannot read
  invalid_request: spec(InvalidArgument, 400, 'edge', 'the request is not valid'),
  malformed_json: spec(InvalidArgument, 400, 'edge', 'request body is not valid JSON'),
  malformed_body: spec(InvalidArgument, 400, 'service', 'the request body is not a valid message'),
  malformed_notification: spec(InvalidArgument, 400, 'edge', 'the notification body must be a JSON object'),
  body_too_large: spec(InvalidArgument, 413, 'edge', 'request body is too large'),
  unsupported_media_type: spec(InvalidArgument, 415, 'edge', 'request body must be application/json'),
  not_found: spec(NotFound, 404, 'edge', 'no such route'),
  conflict: spec(Aborted, 409, 'edge', 'the request conflicts with the current state'),
  forbidden: spec(PermissionDenied, 403, 'edge', 'this action is not allowed'),
  internal: spec(Internal, 500, 'edge', 'internal error'),
  backend_unavailable: spec(Unavailable, 503, 'edge', 'the service is temporarily unavailable'),
  overloaded: spec(Unavailable, 503, 'edge', 'the service is busy; try again shortly (see Retry-After)'),
  rate_limited: spec(ResourceExhausted, 429, 'client', 'too many attempts; try again later (see Retry-After)'),

  // callers, sessions and accounts
  caller_required: spec(Unauthenticated, 401, 'service', 'the caller account is missing or does not exist'),
  unauthenticated: spec(Unauthenticated, 401, 'edge', 'a valid session token is required'),
  session_invalid: spec(Unauthenticated, 401, 'client', 'the session is unknown or has expired'),
  launch_data_invalid: spec(Unauthenticated, 401, 'client', 'the launch data signature does not verify'),
  launch_data_stale: spec(Unauthenticated, 401, 'client', 'the launch data is too old'),
  invalid_credentials: spec(Unauthenticated, 401, 'client', 'e-mail or password is wrong'),
  untrusted_session: spec(PermissionDenied, 403, 'client', 'this session has no recorded platform: it is view-only'),
  account_suspended: spec(PermissionDenied, 403, 'client', 'the account is suspended'),
  platform_not_configured: spec(FailedPrecondition, 503, 'client', 'this sign-in platform is not configured'),
  invalid_mode: spec(InvalidArgument, 400, 'client', 'mode must be signup or signin'),
  invalid_email: spec(InvalidArgument, 400, 'client', 'the e-mail address is not valid'),
  invalid_password: spec(InvalidArgument, 400, 'client', 'the password must be 8-256 characters'),
  invalid_display_name: spec(InvalidArgument, 400, 'client', 'the display name must be 1-64 characters without control characters'),
  email_taken: spec(AlreadyExists, 409, 'client', 'this e-mail address is already in use'),
  email_in_use: spec(AlreadyExists, 409, 'client', 'this e-mail address belongs to another account'),
  confirmation_invalid: spec(NotFound, 400, 'client', 'the confirmation link is unknown, used or expired'),
  invalid_platform: spec(InvalidArgument, 400, 'service', 'platform must be telegram or vk'),
  invalid_external_id: spec(InvalidArgument, 400, 'service', 'external_id must be 1-64 characters'),

  // wallet and catalog
  purchase_forbidden: spec(PermissionDenied, 403, 'client', 'purchases are not allowed in this context'),
  invalid_product_id: spec(InvalidArgument, 400, 'client', 'product_id must be a positive integer written as a string of decimal digits'),
  unknown_product: spec(NotFound, 404, 'client', 'no such product'),
  not_sold_for_chips: spec(FailedPrecondition, 409, 'client', 'this product cannot be bought with chips'),
  insufficient_chips: spec(FailedPrecondition, 409, 'client', 'not enough chips for this product'),
  invalid_idempotency_key: spec(InvalidArgument, 400, 'client', 'Idempotency-Key must be 1-128 printable ASCII characters without spaces'),
  idempotency_key_reused: spec(FailedPrecondition, 409, 'client', 'this Idempotency-Key was used for a different request'),
  invalid_title: spec(InvalidArgument, 400, 'client', 'the title must be 1-64 characters and must not contain any of & < > " \''),
  invalid_atoms: spec(InvalidArgument, 400, 'client', 'the atoms are not valid'),
  invalid_prices: spec(InvalidArgument, 400, 'client', 'the prices are not valid'),
  invalid_currency: spec(InvalidArgument, 400, 'client', 'a card price must be in a currency the configured card shops settle'),
  invalid_offer: spec(InvalidArgument, 400, 'client', 'the subscription, offer window or purchase limit is not valid'),
  offer_not_available: spec(FailedPrecondition, 409, 'client', 'this offer is not available now'),
  purchase_limit_reached: spec(FailedPrecondition, 409, 'client', 'you have bought this product as often as it may be bought for now'),

  // orders, the two rails, notifications and refunds
  invalid_rail: spec(InvalidArgument, 400, 'client', 'rail must be stars or card'),
  rail_not_offered: spec(FailedPrecondition, 409, 'client', 'this payment method is not offered in this context'),
  rail_not_configured: spec(FailedPrecondition, 503, 'client', 'this payment method is not configured'),
  not_sold_on_rail: spec(FailedPrecondition, 409, 'client', 'this product is not sold for this payment method'),
  currency_not_settled: spec(FailedPrecondition, 409, 'client', "this product's price is in a currency this payment method cannot settle"),
  email_required: spec(FailedPrecondition, 409, 'client', 'add and confirm an e-mail in your profile to pay by card'),
  bot_unavailable: spec(Unavailable, 503, 'client', 'the payment bot is not reachable right now; try again shortly'),
  // The bot was reached and its Ack carried an error (the spec's Ack.error: "unexpected transport or
  // render failure"): the platform refused the command or rendering it failed. 502: an upstream
  // answered, with a failure.
  bot_delivery_failed: spec(
    Unavailable,
    502,
    'client',
    'the payment bot was reached but reported an unexpected transport or render failure; try again later',
  ),
  provider_unavailable: spec(Unavailable, 503, 'client', 'the payment provider is not reachable right now; try again shortly'),
  payment_rejected: spec(FailedPrecondition, 409, 'client', 'the payment provider refused this payment'),
  invalid_order_id: spec(InvalidArgument, 400, 'client', 'the order id must be a uuid'),
  unknown_order: spec(NotFound, 404, 'client', 'no such order'),
  unknown_provider: spec(InvalidArgument, 404, 'client', 'no payment provider by this name'),
  intake_unavailable: spec(Unavailable, 503, 'client', 'the notification could not be handled now; redeliver later'),
  refund_not_supported: spec(FailedPrecondition, 409, 'client', 'this order cannot be refunded from the console'),
  order_not_paid: spec(FailedPrecondition, 409, 'client', 'the order is not paid'),
  refund_rejected: spec(FailedPrecondition, 409, 'client', 'the payment provider refused the refund; nothing was recorded'),
  refund_in_progress: spec(Aborted, 409, 'client', 'a refund of this order is in progress; press again shortly to see its outcome'),

  // promo and redeem codes (the wallet page, REST and the console's /_gm/codes)
  // One answer for a code that is unknown, used up, outside its window or not for this host: a
  // guesser learns nothing from which of them it was.
  code_not_redeemable: spec(FailedPrecondition, 409, 'client', 'this code cannot be redeemed'),
  code_already_redeemed: spec(FailedPrecondition, 409, 'client', 'you have already redeemed this code'),
  invalid_promo_code: spec(InvalidArgument, 400, 'service', 'the code is not valid'),
  promo_code_taken: spec(AlreadyExists, 409, 'service', 'a code with these characters exists already'),
  unknown_promo_code: spec(NotFound, 404, 'service', 'no such code'),
  unknown_redemption: spec(NotFound, 404, 'service', 'no such redemption'),
  redemption_reversed: spec(FailedPrecondition, 409, 'service', 'this redemption was reversed already'),
  // stars subscriptions (the monthly pass)
  subscription_stars_only: spec(FailedPrecondition, 409, 'client', 'a subscription is paid with stars only'),
  invalid_subscription_id: spec(
    InvalidArgument,
    400,
    'client',
    'the subscription id must be a positive integer written as a string of decimal digits',
  ),
  unknown_subscription: spec(NotFound, 404, 'client', 'no such subscription'),
  subscription_expired: spec(FailedPrecondition, 409, 'client', 'this subscription has no paid period left; buy the pass again'),

  // the game and social layer
  invalid_variant: spec(InvalidArgument, 400, 'client', 'variant must be classic or no_repeat'),
  invalid_game_id: spec(InvalidArgument, 400, 'client', 'the game id must be a positive integer written as a string of decimal digits'),
  invalid_opponent: spec(InvalidArgument, 400, 'client', 'invite another existing account, or play the robot (vs_ai) without one'),
  invalid_word: spec(InvalidArgument, 400, 'client', 'a word is 2-32 letters a-z'),
  invalid_target: spec(InvalidArgument, 400, 'client', 'account_id must be another account, written as a string of decimal digits'),
  unknown_game: spec(NotFound, 404, 'client', 'no such game'),
  unknown_account: spec(NotFound, 404, 'client', 'no such account'),
  unknown_friend_request: spec(NotFound, 404, 'client', 'this account has not asked you for friendship'),
  account_deleted: spec(FailedPrecondition, 410, 'client', 'the account is deleted'),
  blocked: spec(PermissionDenied, 403, 'client', 'a block stands between you and this player'),
  game_finished: spec(FailedPrecondition, 409, 'client', 'the game is over'),
  not_your_turn: spec(FailedPrecondition, 409, 'client', 'it is not your turn'),
  unknown_word: spec(FailedPrecondition, 409, 'client', 'the word is not in the game dictionary'),
  wrong_letter: spec(FailedPrecondition, 409, 'client', 'the word must start with the last letter of the previous word'),
  word_repeated: spec(FailedPrecondition, 409, 'client', 'the word was already played in this game'),
  no_word_available: spec(FailedPrecondition, 409, 'client', 'no dictionary word fits this position'),
  no_hints_left: spec(FailedPrecondition, 409, 'client', 'no free hints left today and no usable hints in the wallet'),
  hint_locked: spec(FailedPrecondition, 423, 'client', 'hints against the robot unlock 30 minutes after its last move'),

  // the operator console
  operator_unauthenticated: spec(Unauthenticated, 401, 'edge', 'an operator session token is required (POST /_gm/api/session)'),
  operator_session_invalid: spec(Unauthenticated, 401, 'client', 'the operator session is unknown or has expired; sign in again'),
  operator_forbidden: spec(PermissionDenied, 403, 'client', "the operator's roles do not allow this action"),
  invalid_filter: spec(InvalidArgument, 400, 'service', 'the filter is not valid'),
  invalid_cursor: spec(InvalidArgument, 400, 'service', 'the page cursor is not valid'),
  invalid_query: spec(InvalidArgument, 400, 'service', 'enter an account id, an e-mail or a platform identity'),
  invalid_action: spec(InvalidArgument, 400, 'service', 'the moderation action is not valid'),
  invalid_until: spec(InvalidArgument, 400, 'service', 'a temporary block needs an end in the future'),
  invalid_reason: spec(InvalidArgument, 400, 'service', "give the player's request as the reason (1..500 characters)"),

  // reconciliation actions (the console)
  unknown_mismatch: spec(NotFound, 404, 'service', 'no such mismatch'),
  already_resolved: spec(FailedPrecondition, 409, 'service', 'this mismatch was resolved already'),
  action_in_progress: spec(Aborted, 409, 'service', 'another action on this mismatch is under way; reload the report to see its outcome'),
  action_not_allowed: spec(FailedPrecondition, 409, 'service', 'this action does not apply to this mismatch'),
  action_failed: spec(Unavailable, 503, 'service', 'the action could not be completed; nothing was recorded, press again'),

  // support cases (the bot's /paysupport and the console's support desk)
  invalid_support_case: spec(InvalidArgument, 400, 'service', 'the support case request is not valid'),
  support_case_limit: spec(FailedPrecondition, 409, 'service', 'this user has too many open support cases; wait for an answer'),
  unknown_support_case: spec(NotFound, 404, 'service', 'no such support case'),
  support_case_closed: spec(FailedPrecondition, 409, 'service', 'this support case is resolved already'),
  invalid_support_reply: spec(
    InvalidArgument,
    400,
    'service',
    'a reply is 1-1000 characters without control characters other than newlines',
  ),
  // make-goods (the console's grants by a `granter` operator)
  invalid_make_good: spec(
    InvalidArgument,
    400,
    'service',
    'a make-good needs a segment, whole chips, hints or no-ads days (one at least) and a reason (1-500 characters)',
  ),
  make_good_cap_reached: spec(FailedPrecondition, 409, 'service', "this grant would exceed the operator's daily make-good cap"),
} as const satisfies Record<string, ErrorSpec>;

/** Every registry code. */
export type ErrorCode = keyof typeof ERRORS;

/** The codes the backend raises (a DomainError): `client` and `service` ones. */
export type DomainErrorCode = { [K in ErrorCode]: (typeof ERRORS)[K]['audience'] extends 'edge' ? never : K }[ErrorCode];

/** The codes the REST edge answers with: `client` and `edge` ones. */
export type RestErrorCode = { [K in ErrorCode]: (typeof ERRORS)[K]['audience'] extends 'service' ? never : K }[ErrorCode];

/** Whether a string (for example a code named by a newer backend) is a registry code. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERRORS, value);
}

/** Response metadata header that carries the machine error code on every coded ConnectError. */
export const ERROR_CODE_HEADER = 'x-error-code';

/** Response metadata header that carries the whole seconds a `rate_limited` caller must wait. */
export const RETRY_AFTER_HEADER = 'x-retry-after';

/** Response metadata header that carries the seconds left of a `hint_locked` refusal. */
export const HINT_UNLOCK_HEADER = 'x-hint-unlock-left-seconds';

/**
 * The backend's one thrown type for an expected failure: a registry code, a message safe to show
 * the caller (the code's default unless a more precise `detail` is given) and extra response
 * metadata (`x-retry-after`, `x-hint-unlock-left-seconds`). The backend's error edge encodes it.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: DomainErrorCode,
    detail?: string,
    readonly metadata: Readonly<Record<string, string>> = {},
  ) {
    super(detail ?? ERRORS[code].message);
  }
}

/** A `rate_limited` refusal that asks the caller to wait `retryAfterSeconds` (sent as `x-retry-after`). */
export function rateLimited(retryAfterSeconds: number): DomainError {
  return new DomainError('rate_limited', `too many attempts; try again in ${retryAfterSeconds} seconds`, {
    [RETRY_AFTER_HEADER]: String(retryAfterSeconds),
  });
}

/** A ConnectError for a registry code: its Connect code, the code in `x-error-code`, plus `metadata`. */
export function codedConnectError(
  code: ErrorCode,
  message: string = ERRORS[code].message,
  metadata: Readonly<Record<string, string>> = {},
): ConnectError {
  return new ConnectError(message, ERRORS[code].connect, { ...metadata, [ERROR_CODE_HEADER]: code });
}

/** Encodes a DomainError onto the wire as a ConnectError (what the backend's edge answers). */
export function toConnectError(err: DomainError): ConnectError {
  return codedConnectError(err.code, err.message, err.metadata);
}

/**
 * The registry code a failed call names in `x-error-code`, or undefined when it names none or one
 * this build does not know (a newer peer): callers then fall back on the Connect code.
 */
export function errorCodeOf(err: ConnectError): ErrorCode | undefined {
  const named = err.metadata.get(ERROR_CODE_HEADER);
  return named !== null && isErrorCode(named) ? named : undefined;
}
