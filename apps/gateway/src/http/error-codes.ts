/**
 * The closed set of error codes the REST edge answers with, each with its one HTTP status and a
 * default message. Backend machine codes outside this set are never echoed to clients.
 */
export const ERROR_CODES = {
  invalid_request: [400, 'the request is not valid'],
  malformed_json: [400, 'request body is not valid JSON'],
  invalid_idempotency_key: [400, 'Idempotency-Key must be 1-128 printable ASCII characters without spaces'],
  invalid_product_id: [400, 'product_id must be a positive integer written as a string of decimal digits'],
  invalid_title: [400, 'the title must be 1-64 characters and must not contain any of & < > " \''],
  invalid_atoms: [400, 'the atoms are not valid'],
  invalid_prices: [400, 'the prices are not valid'],
  invalid_email: [400, 'the e-mail address is not valid'],
  invalid_password: [400, 'the password must be 8-256 characters'],
  invalid_mode: [400, 'mode must be signup or signin'],
  invalid_display_name: [400, 'the display name must be 1-64 characters without control characters'],
  invalid_variant: [400, 'variant must be classic or no_repeat'],
  invalid_game_id: [400, 'the game id must be a positive integer written as a string of decimal digits'],
  invalid_opponent: [400, 'invite another existing account, or play the robot (vs_ai) without one'],
  invalid_word: [400, 'a word is 2-32 letters a-z'],
  invalid_target: [400, 'account_id must be another account, written as a string of decimal digits'],
  invalid_rail: [400, 'rail must be stars or card'],
  invalid_order_id: [400, 'the order id must be a uuid'],
  malformed_notification: [400, 'the notification body must be a JSON object'],
  confirmation_invalid: [400, 'the confirmation link is unknown, used or expired'],
  unauthenticated: [401, 'a valid session token is required'],
  session_invalid: [401, 'the session is unknown or has expired'],
  launch_data_invalid: [401, 'the launch data signature does not verify'],
  launch_data_stale: [401, 'the launch data is too old'],
  invalid_credentials: [401, 'e-mail or password is wrong'],
  operator_unauthenticated: [401, 'an operator session token is required (POST /_gm/api/session)'],
  operator_session_invalid: [401, 'the operator session is unknown or has expired; sign in again'],
  untrusted_session: [403, 'this session has no recorded platform: it is view-only'],
  purchase_forbidden: [403, 'purchases are not allowed in this context'],
  forbidden: [403, 'this action is not allowed'],
  operator_forbidden: [403, "the operator's roles do not allow this action"],
  blocked: [403, 'a block stands between you and this player'],
  account_suspended: [403, 'the account is suspended'],
  account_deleted: [410, 'the account is deleted'],
  not_found: [404, 'no such route'],
  unknown_product: [404, 'no such product'],
  unknown_order: [404, 'no such order'],
  unknown_game: [404, 'no such game'],
  unknown_account: [404, 'no such account'],
  unknown_friend_request: [404, 'this account has not asked you for friendship'],
  unknown_provider: [404, 'no payment provider by this name'],
  insufficient_chips: [409, 'not enough chips for this product'],
  email_taken: [409, 'this e-mail address is already in use'],
  email_in_use: [409, 'this e-mail address belongs to another account'],
  not_sold_for_chips: [409, 'this product cannot be bought with chips'],
  idempotency_key_reused: [409, 'this Idempotency-Key was used for a different request'],
  conflict: [409, 'the request conflicts with the current state'],
  game_finished: [409, 'the game is over'],
  not_your_turn: [409, 'it is not your turn'],
  unknown_word: [409, 'the word is not in the game dictionary'],
  wrong_letter: [409, 'the word must start with the last letter of the previous word'],
  word_repeated: [409, 'the word was already played in this game'],
  no_word_available: [409, 'no dictionary word fits this position'],
  no_hints_left: [409, 'no free hints left today and no usable hints in the wallet'],
  hint_locked: [423, 'hints against the robot unlock 30 minutes after its last move'],
  rail_not_offered: [409, 'this payment method is not offered in this context'],
  not_sold_on_rail: [409, 'this product is not sold for this payment method'],
  email_required: [409, 'add and confirm an e-mail in your profile to pay by card'],
  payment_rejected: [409, 'the payment provider refused this payment'],
  refund_not_supported: [409, 'this order cannot be refunded from the console'],
  order_not_paid: [409, 'the order is not paid'],
  refund_rejected: [409, 'the payment provider refused the refund; nothing was recorded'],
  rate_limited: [429, 'too many attempts; try again later (see Retry-After)'],
  body_too_large: [413, 'request body is too large'],
  unsupported_media_type: [415, 'request body must be application/json'],
  platform_not_configured: [503, 'this sign-in platform is not configured'],
  rail_not_configured: [503, 'this payment method is not configured'],
  bot_unavailable: [503, 'the payment bot is not reachable right now; try again shortly'],
  provider_unavailable: [503, 'the payment provider is not reachable right now; try again shortly'],
  intake_unavailable: [503, 'the notification could not be handled now; redeliver later'],
  backend_unavailable: [503, 'the service is temporarily unavailable'],
  internal: [500, 'internal error'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether a string (for example a backend machine code) is one of the edge's codes. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

/** HTTP status of a code. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code][0];
}
