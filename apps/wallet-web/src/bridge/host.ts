/** How the host reports a closed invoice (Telegram's `invoice_closed` statuses). */
export type InvoiceStatus = 'paid' | 'cancelled' | 'failed' | 'pending';

/** The host app the page runs in, as far as the page uses it; `none` does nothing and says so. */
export interface Host {
  readonly kind: 'telegram' | 'vk' | 'none';
  /**
   * Opens a stars invoice link in the host's own payment sheet; `onClosed` runs with each outcome
   * the host reports for it. False when this host cannot, so the page offers the link instead.
   * An outcome is a hint for the screen only: the order's state is the truth.
   */
  openInvoice(link: string, onClosed: (status: InvoiceStatus) => void): boolean;
  /** Shows the host's back button while `onBack` is set (pressing it runs `onBack`); null hides it. */
  setBack(onBack: (() => void) | null): void;
  /** Shows the host's settings button, pressing it runs `open`; false when the host has none. */
  offerSettings(open: () => void): boolean;
  /** Opens an outside page in the host's browser, keeping the mini-app open; false when the page's own link should. */
  openLink(url: string): boolean;
}

/** The plain web, or a host whose transport is missing: no bridge call is ever made. */
export const NO_HOST: Host = {
  kind: 'none',
  openInvoice: () => false,
  setBack: () => undefined,
  offerSettings: () => false,
  openLink: () => false,
};
