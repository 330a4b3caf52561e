/** JSON shapes of the gateway's REST API as the page reads them (README "REST API (gateway)"); amounts are decimal strings. */

export interface SessionJson {
  token: string;
  expires_at: string;
  platform: { kind: string | null; subtype: string | null };
  account_id: string;
}

export interface ProfileJson {
  account_id: string;
  display_name: string;
  email: string | null;
  email_confirmed: boolean;
  pending_email: string | null;
  platform: { kind: string | null; subtype: string | null };
  sign_in_providers: string[];
}

export interface WalletJson {
  segments: { segment: string; balance: string; in_debt: boolean }[];
  benefits: { origin: string; no_ads_until: string | null; no_ads_forever: boolean; hints: string; in_debt: boolean }[];
  spend_order: string[];
  can_spend: boolean;
  frozen: boolean;
  trusted: boolean;
}

export interface PriceJson {
  method: string;
  amount: string;
  currency: string;
}

export interface ProductJson {
  product_id: string;
  /** In the page's language (sent as Accept-Language), as is the description. */
  title: string;
  description: string;
  atoms: { kind: string; quantity: string }[];
  prices: PriceJson[];
}

export interface CatalogJson {
  products: ProductJson[];
  purchase_methods: string[];
  email_required: boolean;
  frozen: boolean;
  trusted: boolean;
}

export interface PurchaseJson {
  product_id: string;
  price: string;
  replayed: boolean;
}

export interface OrderJson {
  order_id: string;
  state: string;
  amount: string;
  currency: string;
  chips: string;
  invoice_link: string | null;
  confirmation_url: string | null;
  failure_reason: string | null;
}
