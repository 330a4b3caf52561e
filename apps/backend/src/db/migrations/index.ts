import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_identity.js';
import * as m0002 from './0002_sessions_email.js';
import * as m0003 from './0003_wallet_catalog_ledger.js';
import * as m0010 from './0010_orders.js';
import * as m0020 from './0020_operators.js';
import * as m0030 from './0030_games_social.js';
import * as m0040 from './0040_ledger_daily_totals.js';
import * as m0050 from './0050_drop_redundant_ledger_index.js';
import * as m0060 from './0060_stars_holds_refunds.js';
import * as m0062 from './0062_wallet_debt.js';
import * as m0063 from './0063_refund_attempts.js';
import * as m0070 from './0070_rate_limits.js';
import * as m0080 from './0080_reconciliation.js';
import * as m0090 from './0090_operator_action_claims.js';
import * as m0096 from './0096_provider_rereads.js';
import * as m0100 from './0100_unmatched_order_ref.js';
import * as m0104 from './0104_reconciliation_incomplete.js';
import * as m0106 from './0106_product_texts.js';
import * as m0107 from './0107_unmatched_order_id.js';
import * as m0110 from './0110_order_refund_hold.js';
import * as m0135 from './0135_order_receipts.js';
import * as m0140 from './0140_store_base.js';
import * as m0150 from './0150_star_subscriptions.js';
import * as m0170 from './0170_promo_codes.js';
import * as m0180 from './0180_make_goods.js';
import * as m0181 from './0181_daily_totals_product.js';
import * as m0182 from './0182_catalog_notify.js';
import * as m0183 from './0183_rate_limits_unlogged.js';
import * as m0130 from './0130_bot_forgets.js';
import * as m0120 from './0120_support_cases.js';

/**
 * Every migration, in order. Names sort lexically; a new migration appends a new entry and never
 * edits a landed one (expand, then contract; every `up` has a `down`).
 */
export const migrations: Record<string, Migration> = {
  '0001_identity': m0001,
  '0002_sessions_email': m0002,
  '0003_wallet_catalog_ledger': m0003,
  '0010_orders': m0010,
  '0020_operators': m0020,
  '0030_games_social': m0030,
  '0040_ledger_daily_totals': m0040,
  '0050_drop_redundant_ledger_index': m0050,
  '0060_stars_holds_refunds': m0060,
  '0062_wallet_debt': m0062,
  '0063_refund_attempts': m0063,
  '0070_rate_limits': m0070,
  '0080_reconciliation': m0080,
  '0090_operator_action_claims': m0090,
  '0096_provider_rereads': m0096,
  '0100_unmatched_order_ref': m0100,
  '0104_reconciliation_incomplete': m0104,
  '0106_product_texts': m0106,
  '0107_unmatched_order_id': m0107,
  '0110_order_refund_hold': m0110,
  '0120_support_cases': m0120,
  '0130_bot_forgets': m0130,
  '0135_order_receipts': m0135,
  '0140_store_base': m0140,
  '0150_star_subscriptions': m0150,
  '0170_promo_codes': m0170,
  '0180_make_goods': m0180,
  '0181_daily_totals_product': m0181,
  '0182_catalog_notify': m0182,
  '0183_rate_limits_unlogged': m0183,
};
