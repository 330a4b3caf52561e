/** The part of Telegram's WebApp object the page uses, when a host provides it. */
interface TelegramWebApp {
  initData?: string;
  ready?: () => void;
  openInvoice?: (url: string, callback?: (status: string) => void) => void;
}

interface Window {
  Telegram?: { WebApp?: TelegramWebApp };
}
