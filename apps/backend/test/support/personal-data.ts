/**
 * Every backend column that could hold a player's personal data (every text, varchar, json, array
 * and bytea column, and every column whose name says it holds a user, payer, login, name, e-mail,
 * address or agent), and what an account deletion does to it. The privacy suite checks the live
 * schema against this list, so a migration that adds such a column fails the suite until someone
 * decides here what the deletion does with it (and docs/operating/privacy.md says so):
 *
 * - `erased`: the deletion empties the value of the account's rows (the suite fills it with the
 *   player's markers before the deletion and finds none after);
 * - `nulled`: the deletion sets it null on the account's row (the suite sets it before and sees it null after);
 * - `row`: the deletion deletes the account's rows of the table (by `account_id`);
 * - `kept: <why>`: personal, or possibly personal, and kept on purpose (privacy.md explains it);
 * - `none`: holds no personal data (codes, states, amounts, product texts, ids of our own).
 */
export type Disposition = 'erased' | 'nulled' | 'row' | 'none' | `kept: ${string}`;

/** The register: `table.column` to its disposition. */
export const PERSONAL_DATA: Readonly<Record<string, Disposition>> = {
  'accounts.status': 'none',
  'accounts.display_name': 'erased',
  'accounts.email': 'erased',
  'accounts.email_confirmed_at': 'nulled',
  'accounts.password_hash': 'erased',

  'platform_identities.kind': 'row',
  'platform_identities.external_id': 'erased',

  'email_confirmations.email': 'erased',
  'email_confirmations.token_hash': 'row',

  'sessions.token_hash': 'row',
  'sessions.platform_kind': 'row',
  'sessions.platform_subtype': 'row',

  'wallet_segments.segment': 'none',
  'benefits.origin': 'none',

  'catalog_atoms.kind': 'none',
  'catalog_products.title': 'none',
  'catalog_products.purchase_limit_period': 'none',
  'catalog_prices.method': 'none',
  'catalog_prices.currency': 'none',
  'catalog_product_texts.locale': 'none',
  'catalog_product_texts.title': 'none',
  'catalog_product_texts.description': 'none',

  'ledger_operations.kind': 'none',
  'ledger_operations.segment': 'none',
  'ledger_operations.benefit_origin': 'none',
  'ledger_operations.rail': 'none',
  'ledger_operations.provider': 'none',
  'ledger_operations.refund_id': 'none',
  'ledger_operations.currency': 'none',
  'ledger_operations.note': "kept: append-only money record; holds the operator's make-good or promo-reversal reason",
  'ledger_daily_totals.segment': 'none',
  'ledger_daily_totals.benefit_origin': 'none',
  'ledger_daily_totals.rail': 'none',
  'ledger_daily_totals.kind': 'none',
  'ledger_daily_totals.currency': 'none',

  'buy_requests.idempotency_key': 'none',
  'buy_requests.result': 'none',

  'orders.title': 'none',
  'orders.rail': 'none',
  'orders.provider': 'none',
  'orders.shop': 'none',
  'orders.segment': 'none',
  'orders.currency': 'none',
  'orders.state': 'none',
  'orders.provider_payment_id': 'kept: money record; the provider payment id refunds and reconciliation need',
  'orders.platform_charge_id': 'kept: money record; the Telegram charge id refunds and reconciliation need',
  'orders.invoice_link': 'none',
  'orders.confirmation_url': 'none',
  'orders.failure_reason': 'none',
  'orders.refund_id': 'none',
  'orders.refund_hold': 'none',
  'orders.refund_pending_id': 'none',
  'orders.platform_user_id': 'erased',

  'payment_events.kind': 'none',
  'payment_events.detail': 'none',

  'unmatched_payments.provider': 'none',
  'unmatched_payments.platform_charge_id': 'kept: money record; the charge to return or account for',
  'unmatched_payments.order_ref': 'none',
  'unmatched_payments.order_id': 'none',
  'unmatched_payments.reason': 'none',
  'unmatched_payments.refund_status': 'none',
  'unmatched_payments.refund_error': 'none',
  'unmatched_payments.platform_user_id': 'erased',

  'rate_limits.key': 'kept: sha256 of an e-mail or client address, or an account id; gone when the window ends',

  'operators.login': "kept: an operator's own account, not a player's",
  'operators.password_hash': "kept: an operator's own account, not a player's",
  'operators.roles': 'none',
  'operator_sessions.token_hash': 'none',
  'operator_audit.action': 'none',
  'operator_audit.target': 'none',
  'operator_audit.outcome': 'none',
  'operator_audit.detail': "kept: append-only audit; the operator's reason (a deletion's request ticket)",

  'games.variant': 'none',
  'games.status': 'none',
  'games.last_word': 'none',
  'games.finish_reason': 'none',
  'game_moves.word': 'none',
  'friendships.status': 'none',

  'reconciliation_runs.trigger': 'none',
  'reconciliation_runs.outcome': 'none',
  'reconciliation_runs.error': 'none',
  'reconciliation_runs.rails': 'none',
  'reconciliation_mismatches.kind': 'none',
  'reconciliation_mismatches.rail': 'none',
  'reconciliation_mismatches.provider': 'none',
  'reconciliation_mismatches.shop': 'none',
  'reconciliation_mismatches.payment_ref': 'kept: money record; the charge or payment the finding is about',
  'reconciliation_mismatches.refund_ref': 'none',
  'reconciliation_mismatches.payer_ref': 'erased',
  'reconciliation_mismatches.ledger_currency': 'none',
  'reconciliation_mismatches.provider_currency': 'none',
  'reconciliation_mismatches.resolution': 'none',
  'reconciliation_mismatches.action': 'none',
  'reconciliation_lease.holder': 'none',

  'provider_rereads.shop': 'none',
  'provider_rereads.kind': 'none',
  'provider_rereads.object_id': 'none',

  'support_cases.code': 'none',
  'support_cases.platform': 'none',
  'support_cases.platform_user_id': 'erased',
  'support_cases.platform_charge_id': 'kept: money record; the charge the case is about',
  'support_cases.language': 'none',
  'support_cases.text': 'erased',
  'support_cases.state': 'none',
  'support_case_events.kind': 'none',
  'support_case_events.text': 'erased',
  'support_case_events.outcome': 'none',

  'bot_forgets.user_id': 'kept: the deleted user the bot must still forget; the row goes when the bot acks',
  'bot_forgets.last_error': 'none',

  'star_subscriptions.segment': 'none',
  'star_subscriptions.platform_user_id': 'erased',
  'star_subscriptions.currency': 'none',
  'star_subscriptions.last_charge_id': 'kept: money record; the last charge of the pass',
  'star_subscription_periods.charge_id': 'kept: money record; the charge of one paid period',

  'promo_codes.code_hash': 'none',
  'promo_codes.prefix': 'none',
  'promo_codes.label': 'none',
  'promo_codes.hosts': 'none',
  'promo_redemptions.segment': 'none',

  'make_goods.form_token': 'none',
  'make_goods.segment': 'none',
  'make_goods.reason': "kept: money record; the operator's reason for the grant",
  'make_goods.support_case': 'none',
};

/** Column names that say the column holds someone's identity, whatever its type. */
export const PERSONAL_NAME = /user|(^|_)(payer|external|email|e_mail|name|phone|login|address|agent|ip|ua)(_|$)/;
